/**
 * Ingestion: conversations pushed by an integration or a script are redacted, then stored (a new
 * id per source and external id, or replacing the earlier content of the same one), and an
 * analysis of the organization is asked for, all in the caller's transaction.
 */
import { hash } from "node:crypto";
import type { Executor } from "../../db/database.js";
import type { ConversationRow } from "../../db/schema.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { requestConversationAnalysis } from "./conversations.jobs.js";
import { existingConversations, insertConversations, replaceConversation, requestAnalysis } from "./conversations.queries.js";
import type { ConversationInputValue } from "./conversations.schemas.js";
import { redact, redactUrl } from "./redact.model.js";

export interface IngestOutcome {
  created: number;
  replaced: number;
  unchanged: number;
}

/** The stored form of an input: every text redacted, and the hash of what is stored. */
export function redactedConversation(input: ConversationInputValue) {
  const subject = input.subject !== undefined ? redact(input.subject) : null;
  const parts = input.parts.map((part) => ({ type: "message" as const, role: part.role, body: redact(part.body) }));
  const metadataUrl = input.metadata?.url !== undefined ? redactUrl(input.metadata.url) : null;
  const attributes = Object.fromEntries(
    Object.entries(input.metadata?.attributes ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => [key, redact(value)]),
  );
  const partsJson = JSON.stringify(parts);
  const attributesJson = JSON.stringify(attributes);
  const contentHash = hash(
    "sha256",
    JSON.stringify([subject, partsJson, metadataUrl, attributesJson, input.metadata?.createdAt ?? null]),
    "hex",
  );
  return { subject, parts: partsJson, metadataUrl, metadataAttributes: attributesJson, contentHash };
}

/**
 * Stores the conversations of one source. An id already ingested from that source is replaced
 * (and analysed again) when its content changed, and left as it is otherwise. Ids repeated within
 * one request are refused: which one should win is not clear.
 */
export async function ingestConversations(
  trx: Executor,
  input: { orgId: string; source: string; conversations: ConversationInputValue[]; now: string },
): Promise<IngestOutcome> {
  const seen = new Map<string, number>();
  input.conversations.forEach((conversation, index) => {
    const earlier = seen.get(conversation.id);
    if (earlier !== undefined) {
      throw invalid(`body[${index}].id "${conversation.id}" repeats body[${earlier}].id: each conversation may appear once per request.`);
    }
    seen.set(conversation.id, index);
  });
  const existing = await existingConversations(
    trx,
    input.orgId,
    input.source,
    input.conversations.map((c) => c.id),
  );
  const fresh: ConversationRow[] = [];
  const outcome: IngestOutcome = { created: 0, replaced: 0, unchanged: 0 };
  for (const conversation of input.conversations) {
    const stored = redactedConversation(conversation);
    const before = existing.get(conversation.id);
    const createdAt = conversation.metadata?.createdAt ? new Date(conversation.metadata.createdAt).toISOString() : undefined;
    if (!before) {
      fresh.push({
        id: newId(),
        orgId: input.orgId,
        source: input.source,
        externalId: conversation.id,
        ...stored,
        createdAt: createdAt ?? input.now,
        ingestedAt: input.now,
        processedAt: null,
      });
      outcome.created++;
    } else if (before.contentHash !== stored.contentHash) {
      await replaceConversation(trx, before.id, { ...stored, createdAt: createdAt ?? before.createdAt, ingestedAt: input.now });
      outcome.replaced++;
    } else {
      outcome.unchanged++;
    }
  }
  await insertConversations(trx, fresh);
  if (outcome.created + outcome.replaced > 0) {
    await requestAnalysis(trx, input.orgId, input.now);
    await requestConversationAnalysis(trx, input.orgId);
  }
  return outcome;
}
