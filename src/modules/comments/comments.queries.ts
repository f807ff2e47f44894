import type { ExpressionBuilder } from "kysely";
import type { Executor } from "../../db/database.js";
import type { CommentAnchorRow, CommentReplyRow, CommentRow, CommentsTable, Database } from "../../db/schema.js";
import { type Page, paginate, type SortKey } from "../../lib/pagination.js";
import { type JoinedMemberRow, type MemberWithUser, membersWithUsers, toMemberWithUser } from "../members/members.queries.js";
import type { CommentLocation } from "./comments-scope.model.js";

/** The filter selecting the comments of one location. */
function inLocation(location: CommentLocation) {
  return (eb: ExpressionBuilder<Database, "comments">) =>
    eb.and([
      eb("comments.spaceId", "=", location.spaceId),
      location.changeRequestId === undefined
        ? eb("comments.changeRequestId", "is", null)
        : eb("comments.changeRequestId", "=", location.changeRequestId),
    ]);
}

export async function insertComment(db: Executor, row: CommentRow): Promise<void> {
  await db.insertInto("comments").values(row).execute();
}

/** A comment of this space or change request (a comment of another one is not found). */
export function getComment(db: Executor, location: CommentLocation, id: string): Promise<CommentRow | undefined> {
  return db.selectFrom("comments").selectAll().where(inLocation(location)).where("comments.id", "=", id).executeTakeFirst();
}

/** The comments of this space or change request with these ids, in no particular order (others are left out). */
export async function getCommentsByIds(db: Executor, location: CommentLocation, ids: readonly string[]): Promise<CommentRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("comments")
    .selectAll()
    .where(inLocation(location))
    .where("comments.id", "in", [...new Set(ids)])
    .execute();
}

export interface ListCommentsOptions {
  page?: string | undefined;
  limit?: number | undefined;
  order: "asc" | "desc";
  status: "all" | "open" | "resolved";
  targetPage?: string | undefined;
  authors?: string[] | undefined;
}

/** One page of comments, keyset-paged on `postedAt` then `id` in the requested order. */
export function listComments(db: Executor, location: CommentLocation, options: ListCommentsOptions): Promise<Page<CommentRow>> {
  let query = db.selectFrom("comments").selectAll().where(inLocation(location));
  if (options.status !== "all") query = query.where("comments.status", "=", options.status);
  if (options.targetPage !== undefined) query = query.where("comments.pageId", "=", options.targetPage);
  if (options.authors !== undefined) {
    if (options.authors.length === 0) return Promise.resolve({ rows: [], count: 0 });
    query = query.where("comments.postedBy", "in", options.authors);
  }
  const keys: SortKey<CommentRow>[] = [
    { column: "comments.postedAt", direction: options.order, value: (r) => r.postedAt },
    { column: "comments.id", direction: options.order, value: (r) => r.id },
  ];
  return paginate(query, keys, options);
}

export async function updateComment(
  db: Executor,
  id: string,
  changes: Partial<Pick<CommentsTable, "body" | "editedAt" | "status" | "resolvedAt" | "resolvedBy">>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.updateTable("comments").set(changes).where("id", "=", id).execute();
}

/** Deletes a comment with its replies and reactions (foreign keys). */
export async function deleteComment(db: Executor, id: string): Promise<void> {
  await db.deleteFrom("comments").where("id", "=", id).execute();
}

export async function insertReply(db: Executor, row: CommentReplyRow): Promise<void> {
  await db.insertInto("commentReplies").values(row).execute();
}

export function getReply(db: Executor, commentId: string, id: string): Promise<CommentReplyRow | undefined> {
  return db.selectFrom("commentReplies").selectAll().where("commentId", "=", commentId).where("id", "=", id).executeTakeFirst();
}

/** One page of a comment's replies, oldest first (the order of the conversation). */
export function listReplies(
  db: Executor,
  commentId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<CommentReplyRow>> {
  const query = db.selectFrom("commentReplies").selectAll().where("commentReplies.commentId", "=", commentId);
  return paginate(
    query,
    [
      { column: "commentReplies.postedAt", direction: "asc", value: (r) => r.postedAt },
      { column: "commentReplies.id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

export async function updateReply(db: Executor, id: string, changes: { body: string; editedAt: string }): Promise<void> {
  await db.updateTable("commentReplies").set(changes).where("id", "=", id).execute();
}

export async function deleteReply(db: Executor, id: string): Promise<void> {
  await db.deleteFrom("commentReplies").where("id", "=", id).execute();
}

/** What reactions are attached to: a comment or a reply. */
export type ReactionSubjectKind = "comment" | "reply";
export interface ReactionSubject {
  kind: ReactionSubjectKind;
  id: string;
}

/**
 * Where the reactions of each kind of subject are stored. Both tables have the same columns but
 * the one naming the subject; queries are written once against the comment table's type, with
 * the table and column of the subject's kind substituted.
 */
const REACTION_TABLES = {
  comment: { table: "commentReactions", subject: "commentId" },
  reply: { table: "commentReplyReactions", subject: "replyId" },
} as const satisfies Record<ReactionSubjectKind, { table: keyof Database; subject: string }>;

function reactionTable(kind: ReactionSubjectKind): { table: "commentReactions"; subject: "commentId" } {
  return REACTION_TABLES[kind] as unknown as { table: "commentReactions"; subject: "commentId" };
}

/**
 * Adds and removes one user's reactions. Adding an emoji the user already reacted with keeps the
 * first reaction (and its time); an emoji both added and removed ends up removed.
 */
export async function applyReactions(
  db: Executor,
  subject: ReactionSubject,
  input: { userId: string; added: readonly string[]; removed: readonly string[]; now: string },
): Promise<void> {
  const { table, subject: column } = reactionTable(subject.kind);
  const removed = new Set(input.removed);
  const added = [...new Set(input.added)].filter((emoji) => !removed.has(emoji));
  if (added.length > 0) {
    await db
      .insertInto(table)
      .values(
        added.map(
          (emoji) =>
            ({ [column]: subject.id, userId: input.userId, emoji, reactedAt: input.now }) as {
              commentId: string;
              userId: string;
              emoji: string;
              reactedAt: string;
            },
        ),
      )
      .onConflict((oc) => oc.columns([column, "userId", "emoji"]).doNothing())
      .execute();
  }
  if (removed.size > 0) {
    await db
      .deleteFrom(table)
      .where(column, "=", subject.id)
      .where("userId", "=", input.userId)
      .where("emoji", "in", [...removed])
      .execute();
  }
}

/** One reaction of one user, as stored. */
export interface ReactionRow {
  subjectId: string;
  userId: string;
  emoji: string;
  reactedAt: string;
}

/** Reactions to these comments or replies, oldest first. */
export async function reactionsTo(db: Executor, kind: ReactionSubjectKind, ids: readonly string[]): Promise<ReactionRow[]> {
  if (ids.length === 0) return [];
  const { table, subject: column } = reactionTable(kind);
  return db
    .selectFrom(table)
    .select([`${column} as subjectId`, "userId", "emoji", "reactedAt"])
    .where(column, "in", ids)
    .orderBy("reactedAt")
    .orderBy("userId")
    .orderBy("emoji")
    .execute();
}

/** The replies to these comments, oldest first (a conversation), in one query; at most `limit` in all. */
export async function repliesOfComments(db: Executor, commentIds: readonly string[], limit: number): Promise<CommentReplyRow[]> {
  if (commentIds.length === 0) return [];
  return db
    .selectFrom("commentReplies")
    .selectAll()
    .where("commentId", "in", [...commentIds])
    .orderBy("postedAt")
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** How many replies each user wrote on a comment, and when they last replied. */
export interface ReplierRow {
  commentId: string;
  userId: string;
  count: number;
  updatedAt: string;
}

export async function repliersOfComments(db: Executor, commentIds: readonly string[]): Promise<ReplierRow[]> {
  if (commentIds.length === 0) return [];
  const rows = await db
    .selectFrom("commentReplies")
    .select((eb) => ["commentId", "postedBy as userId", eb.fn.countAll<number>().as("count"), eb.fn.max("postedAt").as("updatedAt")])
    .where("commentId", "in", commentIds)
    .groupBy(["commentId", "postedBy"])
    .execute();
  return rows.map((r) => ({ commentId: r.commentId, userId: r.userId, count: Number(r.count), updatedAt: String(r.updatedAt) }));
}

/**
 * The organization's members who posted a comment or a reply in this space or change request,
 * in the order they joined the organization. Authors who left the organization are not listed.
 */
export async function listCommenters(
  db: Executor,
  input: CommentLocation & { orgId: string },
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<MemberWithUser>> {
  const query = membersWithUsers(db, input.orgId).where("members.userId", "in", (eb) =>
    eb
      .selectFrom("comments")
      .select("comments.postedBy as userId")
      .where(inLocation(input))
      .union(
        eb
          .selectFrom("commentReplies")
          .innerJoin("comments", "comments.id", "commentReplies.commentId")
          .select("commentReplies.postedBy as userId")
          .where(inLocation(input)),
      ),
  );
  const keys: SortKey<JoinedMemberRow>[] = [
    { column: "members.joinedAt", direction: "asc", value: (r) => r.joinedAt },
    { column: "members.userId", direction: "asc", value: (r) => r.userId },
  ];
  const page = await paginate(query, keys, options);
  return { ...page, rows: page.rows.map(toMemberWithUser) };
}

/** Stores where in the page's text an inline comment was made (migration 0033). */
export async function insertCommentAnchor(db: Executor, row: CommentAnchorRow): Promise<void> {
  await db.insertInto("commentAnchors").values(row).execute();
}

/** The anchors of these comments, for those that have one. */
export async function anchorsOfComments(db: Executor, commentIds: readonly string[]): Promise<CommentAnchorRow[]> {
  if (commentIds.length === 0) return [];
  return db
    .selectFrom("commentAnchors")
    .selectAll()
    .where("commentId", "in", [...new Set(commentIds)])
    .execute();
}
