/**
 * One run of a translation (called by its job). It reads the source space's primary content,
 * translates every page whose text changed since the last run (and only those: the others reuse
 * what the last run wrote, remembered in `translation_items`), and writes the translated copy as
 * one new revision of the target space, in one transaction with the items and the stats. Nothing
 * is written before that transaction: a run that fails or is stopped half-way leaves the target
 * space, the items and the stats as they were, and its retry starts again from the source.
 */
import { createHash } from "node:crypto";
import type { JSONDocument } from "../../content/document/types.js";
import { commitRevision } from "../../content/revision/commit.js";
import type { PageNode, ReusableContentEntry, RevisionContent } from "../../content/revision/model.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { documentHashOf, loadContent, loadDocuments, prepareContent, saveDocument } from "../../content/revision/storage.js";
import { requestSearchIndex } from "../../content/search/search-index.jobs.js";
import { collectDocument, SegmentCollector } from "../../content/translations/segments.js";
import type { JobContext } from "../../jobs/registry.js";
import { DomainError } from "../../lib/errors.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { translatorFor } from "./engines.adapter.js";
import { membersReadingBeyondSource } from "./translations.loader.js";
import {
  getTranslationById,
  hasQueuedRun,
  loadItems,
  recordFailure,
  recordRun,
  replaceItems,
  setStatus,
  type TranslatedItem,
  type TranslationItem,
} from "./translations.queries.js";
import { isLanguage, type LanguagePair, requirePair, type Translator } from "./translator.model.js";

export const TRANSLATION_RUN_ATTEMPTS = 5;

export interface TranslationRunPayload {
  translationId: string;
  /** Set on runs started by a change of the source (its new revision): skipped when a run already translated that content. */
  changedSource?: string;
}

/** The run cannot succeed by retrying (the source or target space is gone, the pair is not installed). */
class PermanentFailure extends Error {}

function widerTargetMessage(sourceId: string, targetId: string, userIds: readonly string[]): string {
  const shown = userIds
    .slice(0, 5)
    .map((id) => `"${id}"`)
    .join(", ");
  const more = userIds.length > 5 ? ` and ${userIds.length - 5} more` : "";
  const who = userIds.length === 1 ? "1 member" : `${userIds.length} members`;
  return `The translated space "${targetId}" can be read by ${who} who cannot read its source "${sourceId}" (users ${shown}${more}), so this run wrote nothing: it would show them the source's content. Give the translated space no wider access than its source (its default level, its grants and its collection's), or give them access to the source, then run the translation again.`;
}

/** What a page (or reusable content) is, as far as its translation is concerned. */
function fingerprint(
  engine: string,
  pair: LanguagePair,
  item: { title: string; description?: string | undefined; label?: string | undefined; documentHash?: string | undefined },
): string {
  return createHash("sha256")
    .update(
      JSON.stringify([engine, pair.from, pair.to, item.title, item.description ?? null, item.label ?? null, item.documentHash ?? null]),
    )
    .digest("hex");
}

interface PendingItem {
  itemId: string;
  isPage: boolean;
  fingerprint: string;
  /** Filled in by the collector once the segments are translated. */
  result: TranslatedItem;
  document?: JSONDocument;
  collector: SegmentCollector;
}

export async function runTranslation(ctx: JobContext, payload: TranslationRunPayload, translator?: Translator): Promise<void> {
  const { db } = ctx;
  const started = Date.now();
  const row = await getTranslationById(db, payload.translationId);
  if (!row) return; // deleted since it was queued
  try {
    const source = await getSpace(db, row.sourceSpaceId);
    if (!source || source.deletedAt || source.orgId !== row.orgId) {
      throw new PermanentFailure(`The source space "${row.sourceSpaceId}" was deleted or moved to another organization.`);
    }
    const target = await getSpace(db, row.targetSpaceId);
    if (!target || target.deletedAt || target.orgId !== row.orgId) {
      throw new PermanentFailure(`The translated space "${row.targetSpaceId}" was deleted or moved to another organization.`);
    }
    if (payload.changedSource && row.sourceRevisionId === source.revisionId) {
      // Started by a change that an earlier run already translated (several merges in a row).
      await setStatus(db, row.id, (await hasQueuedRun(db, row.id)) ? "pending" : "completed");
      ctx.log.debug({ translationId: row.id }, "translation already up to date");
      return;
    }
    if (!isLanguage(row.sourceLanguage) || !isLanguage(row.language))
      throw new PermanentFailure("The translation's languages are not valid.");
    const pair: LanguagePair = { from: row.sourceLanguage, to: row.language };
    const engine = translator ?? translatorFor(ctx.config.translator);
    try {
      await requirePair(engine, pair);
    } catch (error) {
      if (error instanceof DomainError) throw new PermanentFailure(error.message);
      throw error;
    }
    await setStatus(db, row.id, "running");

    const sourceRevision = await getSpaceRevision(db, source.id, source.revisionId);
    const content = await loadContent(db, sourceRevision?.treeHash ?? null);
    const previous = await loadItems(db, row.id);

    // Plan: what each item of the source needs (reuse, or translate).
    const pending: PendingItem[] = [];
    const reused = new Map<string, TranslationItem>();
    const plan = (
      itemId: string,
      isPage: boolean,
      meta: { title: string; description?: string | undefined; label?: string | undefined; documentHash?: string | undefined },
    ) => {
      const print = fingerprint(engine.engine, pair, meta);
      const before = previous.get(itemId);
      if (before && before.sourceFingerprint === print) {
        reused.set(itemId, before);
        return;
      }
      pending.push({
        itemId,
        isPage,
        fingerprint: print,
        result: {
          title: meta.title,
          ...(meta.description ? { description: meta.description } : {}),
          ...(meta.label ? { label: meta.label } : {}),
          ...(meta.documentHash ? { documentHash: meta.documentHash } : {}),
          words: 0,
        },
        collector: new SegmentCollector(),
      });
    };
    const walkPages = (pages: readonly PageNode[]) => {
      for (const page of pages) {
        plan(page.id, true, page);
        walkPages(page.children);
      }
    };
    walkPages(content.pages);
    for (const entry of content.reusableContents) plan(`rc:${entry.id}`, false, entry);

    // Translate every changed item's text in one call to the engine (it batches as it needs).
    const documents = await loadDocuments<JSONDocument>(
      db,
      pending.flatMap((item) => (item.result.documentHash ? [item.result.documentHash] : [])),
    );
    const all = new SegmentCollector();
    for (const item of pending) {
      const result = item.result;
      item.collector.text(result.title, (text) => (result.title = text));
      if (result.description) item.collector.text(result.description, (text) => (result.description = text));
      if (result.label) item.collector.text(result.label, (text) => (result.label = text));
      if (result.documentHash) {
        const document = documents.get(result.documentHash);
        if (!document) throw new Error(`Document ${result.documentHash} of "${item.itemId}" is missing from the store.`);
        item.document = collectDocument(document, item.collector);
      }
      result.words = item.collector.words();
    }
    for (const item of pending) all.segments.push(...item.collector.segments);
    const translated = await engine.translate(pair, all.segments, ctx.signal);
    if (translated.length !== all.segments.length)
      throw new Error(`The engine returned ${translated.length} translations for ${all.segments.length} texts.`);
    const newDocuments: JSONDocument[] = [];
    let offset = 0;
    for (const item of pending) {
      item.collector.apply(translated.slice(offset, offset + item.collector.segments.length));
      offset += item.collector.segments.length;
      if (item.document) {
        item.result.documentHash = documentHashOf(item.document);
        newDocuments.push(item.document);
      }
    }

    // The target content: the source's tree, files and variables, with translated pages.
    const byId = new Map<string, TranslatedItem>();
    for (const [id, item] of reused) byId.set(id, item.translated);
    for (const item of pending) byId.set(item.itemId, item.result);
    const translatedOf = (id: string): TranslatedItem => {
      const t = byId.get(id);
      if (!t) throw new Error(`Item "${id}" was neither translated nor reused.`);
      return t;
    };
    const translatePages = (pages: readonly PageNode[]): PageNode[] =>
      pages.map((page) => {
        const t = translatedOf(page.id);
        const { description: _d, label: _l, documentHash: _h, ...rest } = page;
        return {
          ...rest,
          title: t.title,
          ...(t.description ? { description: t.description } : {}),
          ...(t.label ? { label: t.label } : {}),
          ...(t.documentHash ? { documentHash: t.documentHash } : {}),
          children: translatePages(page.children),
        };
      });
    const translateReusable = (entry: ReusableContentEntry): ReusableContentEntry => {
      const t = translatedOf(`rc:${entry.id}`);
      const { documentHash: _h, ...rest } = entry;
      return { ...rest, title: t.title, ...(t.documentHash ? { documentHash: t.documentHash } : {}) };
    };
    const targetContent: RevisionContent = {
      pages: translatePages(content.pages),
      files: [...content.files],
      reusableContents: content.reusableContents.map(translateReusable),
      variables: { ...content.variables },
    };
    const items: TranslationItem[] = [
      ...reused.values(),
      ...pending.map((item) => ({ itemId: item.itemId, sourceFingerprint: item.fingerprint, translated: item.result })),
    ];
    const translatedPages = pending.filter((item) => item.isPage);
    const outcome = {
      sourceRevisionId: source.revisionId,
      pages: translatedPages.length,
      newPages: translatedPages.filter((item) => !previous.has(item.itemId)).length,
      words: pending.reduce((sum, item) => sum + item.result.words, 0),
    };

    // One transaction: documents, the revision (unless the content is already the target's), items, stats.
    const targetRevision = await getSpaceRevision(db, target.id, target.revisionId);
    const unchanged =
      prepareContent(targetContent).root.hash ===
      (targetRevision?.treeHash ?? prepareContent({ pages: [], files: [], reusableContents: [], variables: {} }).root.hash);
    const revisionId = await db.transaction().execute(async (trx) => {
      // The translation reads like its source, no wider: checked against access as it is when the
      // content is written (the source may have been restricted, the target opened, since creation).
      const [sourceNow, targetNow] = await Promise.all([getSpace(trx, source.id), getSpace(trx, target.id)]);
      const beyond = await membersReadingBeyondSource(trx, row.orgId, sourceNow ?? source, targetNow ?? target);
      if (beyond.length > 0) throw new PermanentFailure(widerTargetMessage(source.id, target.id, beyond));
      let resultRevisionId = target.revisionId;
      if (!unchanged) {
        for (const document of newDocuments) await saveDocument(trx, document);
        const revision = await commitRevision(trx, {
          spaceId: target.id,
          parents: [target.revisionId],
          type: "edits",
          content: targetContent,
          createdBy: row.createdBy,
          movePrimaryFrom: target.revisionId,
        });
        await requestSearchIndex(trx, target.id);
        resultRevisionId = revision.id;
      }
      await replaceItems(trx, row.id, items);
      const recorded = await recordRun(trx, row, { ...outcome, resultRevisionId, durationMs: Date.now() - started });
      if (!recorded) throw new Error("Another run of this translation finished first; this one will run again.");
      // A run queued meanwhile (the source changed during this one) shows as pending.
      if (await hasQueuedRun(trx, row.id)) await setStatus(trx, row.id, "pending");
      return resultRevisionId;
    });
    ctx.notifyJobs();
    ctx.log.info({ translationId: row.id, revision: revisionId, pages: outcome.pages, words: outcome.words }, "translation run done");
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PermanentFailure || ctx.attempt >= TRANSLATION_RUN_ATTEMPTS) {
      await recordFailure(db, row.id, message);
      ctx.log.warn({ translationId: row.id, err: error }, "translation run failed");
      return;
    }
    await setStatus(db, row.id, "pending");
    throw error;
  }
}
