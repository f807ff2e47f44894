/**
 * Storing comments and replies: the checks a comment needs before it is stored (its body becomes
 * a JSON document, its target (page, block, table cell) must exist in the content the comments
 * are about, reactions are emoji), and the writes themselves (posting, editing, resolving and
 * reopening, reacting), each in the transaction its caller opens.
 */
import { indexKeyedNodes } from "../../content/document/find.js";
import type { JSONDocument } from "../../content/document/types.js";
import { markdownFromDocument } from "../../content/markdown/index.js";
import { convertMarkdown } from "../../content/markdown/off-thread.js";
import type { Executor, Trx } from "../../db/database.js";
import type { CommentReplyRow, CommentRow, CommentsTable, SpaceRow } from "../../db/schema.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import { loadRevisionView, pageDocument } from "../content/content.loader.js";
import { applyReactions, insertComment, insertReply, updateComment, updateReply } from "./comments.queries.js";
import type { BodyInputValue, TableCellValue } from "./comments.schemas.js";
import type { CommentScope } from "./comments-scope.model.js";

/**
 * A comment body parsed as the body of a page would be, except that it has no title and no front
 * matter: a `# heading` is a heading and a leading `---` is a divider. Parsing behind a title line
 * of our own gives exactly that (the parser takes the first `#` heading as the page title).
 * Bodies may be up to 100,000 characters, ~0.5 s of conversion: those over 2 KB are converted in
 * a worker thread, as page Markdown given to the API is (off-thread.ts).
 */
async function documentFromMarkdown(markdown: string, previousJson: string | undefined): Promise<JSONDocument> {
  const converted = await convertMarkdown({ markdown: `# Comment\n\n${markdown}`, previousJson });
  return JSON.parse(converted.json) as JSONDocument;
}

/**
 * The JSON document to store for a body given as `{markdown}` or `{document}`. `field` names the
 * body in messages (`body.body`); `previousJson` (the stored body being edited) lets unchanged
 * blocks keep their keys.
 */
export async function documentFromBody(input: BodyInputValue, field: string, previousJson?: string): Promise<JSONDocument> {
  const hasMarkdown = input.markdown !== undefined;
  const hasDocument = input.document !== undefined;
  if (hasMarkdown === hasDocument) {
    throw invalid(
      hasMarkdown
        ? `${field} must have either markdown or document, not both.`
        : `${field} must have either markdown (a string of Markdown) or document (a JSON document); it has neither.`,
    );
  }
  if (hasMarkdown) {
    if (input.markdown!.trim() === "") throw invalid(`${field}.markdown must not be empty.`);
    const document = await documentFromMarkdown(input.markdown!, previousJson);
    if (document.nodes.length === 0) throw invalid(`${field}.markdown has no content once read as Markdown.`);
    return document;
  }
  const given = input.document!;
  if (given.nodes.length === 0) throw invalid(`${field}.document must have at least one block in nodes.`);
  const document = { ...given, object: "document", data: given.data ?? {}, nodes: given.nodes } as unknown as JSONDocument;
  checkDocument(document, `${field}.document`);
  return document;
}

const MAX_DOCUMENT_DEPTH = 32;
const MAX_DOCUMENT_NODES = 20_000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A document sent by a client is stored as it is, so it must be one Quire can read back: every
 * node well formed (blocks and inlines typed, text made of leaves, child lists as arrays), and
 * each top-level block readable by the Markdown writer (which needs each block type's fields),
 * so that `format=markdown` never fails on it later. Nesting and size are bounded.
 */
export function checkDocument(document: JSONDocument, field: string): void {
  let count = 0;
  const visit = (node: unknown, path: string, depth: number): void => {
    if (++count > MAX_DOCUMENT_NODES) throw invalid(`${field} has more than ${MAX_DOCUMENT_NODES} nodes.`);
    if (depth > MAX_DOCUMENT_DEPTH) throw invalid(`${field} nests deeper than ${MAX_DOCUMENT_DEPTH} levels (at ${path}).`);
    if (!isObject(node)) throw invalid(`${path} must be a node (an object).`);
    const kind = node.object;
    if (kind === "text") {
      if (!Array.isArray(node.leaves)) throw invalid(`${path}.leaves must be an array of leaves.`);
      node.leaves.forEach((leaf, i) => {
        if (!isObject(leaf) || typeof leaf.text !== "string") throw invalid(`${path}.leaves.${i} must be a leaf with a text string.`);
        if (
          leaf.marks !== undefined &&
          (!Array.isArray(leaf.marks) || !leaf.marks.every((m) => isObject(m) && typeof m.type === "string"))
        ) {
          throw invalid(`${path}.leaves.${i}.marks must be an array of marks, each with a type.`);
        }
      });
      return;
    }
    if (kind !== "block" && kind !== "inline" && kind !== "fragment") {
      throw invalid(`${path}.object must be one of: "block", "inline", "text", "fragment".`);
    }
    if (typeof node.type !== "string") throw invalid(`${path}.type must be a string.`);
    if (node.key !== undefined && typeof node.key !== "string") throw invalid(`${path}.key must be a string.`);
    if (node.data !== undefined && !isObject(node.data)) throw invalid(`${path}.data must be an object.`);
    for (const list of ["nodes", "fragments"] as const) {
      const children = node[list];
      if (children === undefined) continue;
      if (!Array.isArray(children)) throw invalid(`${path}.${list} must be an array.`);
      children.forEach((child, i) => {
        visit(child, `${path}.${list}.${i}`, depth + 1);
      });
    }
  };
  document.nodes.forEach((node, i) => {
    visit(node, `${field}.nodes.${i}`, 1);
  });
  document.nodes.forEach((node, i) => {
    try {
      markdownFromDocument({ object: "document", data: {}, nodes: [node] });
    } catch {
      throw invalid(
        `${field}.nodes.${i} is an incomplete ${node.type} block: it lacks fields its type needs (see JSONDocument in the API reference).`,
      );
    }
  });
}

/** What a comment is attached to, as stored. */
export interface CheckedTarget {
  revisionId: string;
  pageId: string | null;
  nodeKey: string | null;
  tableCell: TableCellValue | null;
}

/**
 * Checks the target of a new comment against the revision the comments are about: the page must
 * be one of its pages, the node a block of that page's document, and a table cell needs a table
 * node. Block keys are stable across revisions, so the target keeps pointing at its block after
 * later edits of other blocks.
 */
export async function checkTarget(
  db: Executor,
  scope: { space: SpaceRow; revision: string },
  input: { page?: string | undefined; node?: string | undefined; tableCell?: TableCellValue | undefined },
): Promise<CheckedTarget> {
  const target: CheckedTarget = { revisionId: scope.revision, pageId: null, nodeKey: null, tableCell: null };
  if (input.page === undefined) {
    if (input.node !== undefined) throw invalid("body.node needs body.page: a node is looked up in that page's document.");
    if (input.tableCell !== undefined) throw invalid("body.tableCell needs body.page and body.node (the table).");
    return target;
  }
  const view = await loadRevisionView(db, scope.space, scope.revision);
  const location = view.locations().get(input.page);
  if (!location) throw invalid(`body.page: no page with id "${input.page}" in the content commented on (revision "${scope.revision}").`);
  target.pageId = input.page;
  if (input.node === undefined) {
    if (input.tableCell !== undefined) throw invalid("body.tableCell needs body.node (the table block).");
    return target;
  }
  const document = location.page.kind === "document" ? ((await pageDocument(db, location)) as JSONDocument) : undefined;
  const found = document ? indexKeyedNodes(document).get(input.node)?.node : undefined;
  const block = found?.object === "block" ? found : undefined;
  if (!block) throw invalid(`body.node: no block with key "${input.node}" in the document of page "${input.page}".`);
  target.nodeKey = input.node;
  if (input.tableCell !== undefined) {
    if (block.type !== "table") {
      throw invalid(`body.tableCell targets a cell of a table, but node "${input.node}" is a ${block.type ?? "block"} block.`);
    }
    target.tableCell = { record: input.tableCell.record, definition: input.tableCell.definition };
  }
  return target;
}

// One emoji, possibly with modifiers, joiners, variation selectors or as a flag or keycap sequence.
const EMOJI =
  /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[#*0-9]\uFE0F?\u20E3)(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|[\u200D\uFE0F\u20E3]|\p{Mn})*$/u;

/**
 * Reactions are emoji. The schema accepts any string (a number is refused there: bodies are not
 * coerced), so `"1"` or `"nice"` are refused here by name.
 */
export function checkReactions(field: string, reactions: readonly string[] | undefined): void {
  for (const [i, reaction] of (reactions ?? []).entries()) {
    if (!EMOJI.test(reaction)) throw invalid(`${field}.${i} must be an emoji such as 👍, not ${JSON.stringify(reaction)}.`);
  }
}

/** Runs in the transaction that stores a new comment or reply (change requests count contributions). */
type OnPosted = (trx: Trx) => Promise<void>;

/** The target of a new comment, as a client gives it (checked by `checkTarget`). */
export interface TargetInput {
  page?: string | undefined;
  node?: string | undefined;
  tableCell?: TableCellValue | undefined;
}

/**
 * Stores a new open comment by `postedBy` in the scope's space or change request, about the
 * scope's revision, at `target` (checked before by `checkTarget`, outside the transaction, since
 * reading content would otherwise hold it open); returns the stored row. Runs in the caller's
 * transaction (a review stores its comment with the review).
 */
export async function createComment(
  trx: Trx,
  input: {
    scope: Pick<CommentScope, "space" | "changeRequestId">;
    target: CheckedTarget;
    postedBy: string;
    document: JSONDocument;
    /** The review this comment is the comment of. */
    reviewId?: string;
    now?: string;
    onPosted?: OnPosted;
  },
): Promise<CommentRow> {
  const { scope, target } = input;
  const row: CommentRow = {
    id: newId(),
    spaceId: scope.space.id,
    changeRequestId: scope.changeRequestId ?? null,
    revisionId: target.revisionId,
    pageId: target.pageId,
    nodeKey: target.nodeKey,
    tableCell: target.tableCell ? JSON.stringify(target.tableCell) : null,
    body: JSON.stringify(input.document),
    status: "open",
    resolvedAt: null,
    resolvedBy: null,
    postedBy: input.postedBy,
    postedAt: input.now ?? nowIso(),
    editedAt: null,
    reviewId: input.reviewId ?? null,
  };
  await insertComment(trx, row);
  await input.onPosted?.(trx);
  return row;
}

/** Reactions one user adds and removes in one request. */
export interface ReactionChanges {
  addedReactions?: readonly string[] | undefined;
  removedReactions?: readonly string[] | undefined;
}

/**
 * Changes a comment for `actorId` (already authorized): its body (`document`, which marks it
 * edited), its status (`resolved`, see `resolution`) and the actor's reactions, in the caller's transaction.
 */
export async function editComment(
  trx: Trx,
  input: { comment: CommentRow; actorId: string; document?: JSONDocument | undefined; resolved?: boolean | undefined } & ReactionChanges,
): Promise<void> {
  const { comment, actorId, document } = input;
  const now = nowIso();
  await updateComment(trx, comment.id, {
    ...(document ? { body: JSON.stringify(document), editedAt: now } : {}),
    ...resolution(comment, input.resolved, actorId, now),
  });
  await applyReactions(trx, { kind: "comment", id: comment.id }, reactionInput(actorId, input, now));
}

/** Stores a new reply by `postedBy` to a comment, in the caller's transaction; returns the stored row. */
export async function createReply(
  trx: Trx,
  input: { comment: CommentRow; postedBy: string; document: JSONDocument; onPosted?: OnPosted },
): Promise<CommentReplyRow> {
  const row: CommentReplyRow = {
    id: newId(),
    commentId: input.comment.id,
    body: JSON.stringify(input.document),
    postedBy: input.postedBy,
    postedAt: nowIso(),
    editedAt: null,
  };
  await insertReply(trx, row);
  await input.onPosted?.(trx);
  return row;
}

/**
 * Changes a reply for `actorId` (already authorized): its body (`document`, which marks it
 * edited) and the actor's reactions; `resolved` resolves or reopens its comment (change requests).
 * All in the caller's transaction.
 */
export async function editReply(
  trx: Trx,
  input: {
    comment: CommentRow;
    reply: CommentReplyRow;
    actorId: string;
    document?: JSONDocument | undefined;
    resolved?: boolean | undefined;
  } & ReactionChanges,
): Promise<void> {
  const { comment, reply, actorId, document } = input;
  const now = nowIso();
  if (document) await updateReply(trx, reply.id, { body: JSON.stringify(document), editedAt: now });
  await applyReactions(trx, { kind: "reply", id: reply.id }, reactionInput(actorId, input, now));
  await updateComment(trx, comment.id, resolution(comment, input.resolved, actorId, now));
}

function reactionInput(userId: string, changes: ReactionChanges, now: string) {
  return { userId, added: changes.addedReactions ?? [], removed: changes.removedReactions ?? [], now };
}

/** The status change asked for, if any: resolving keeps an earlier resolution, reopening clears it. */
function resolution(
  comment: CommentRow,
  resolved: boolean | undefined,
  actorId: string,
  now: string,
): Partial<Pick<CommentsTable, "status" | "resolvedAt" | "resolvedBy">> {
  if (resolved === true && comment.status !== "resolved") return { status: "resolved", resolvedAt: now, resolvedBy: actorId };
  if (resolved === false && comment.status !== "open") return { status: "open", resolvedAt: null, resolvedBy: null };
  return {};
}
