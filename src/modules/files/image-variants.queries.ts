/** The `image_variants` rows (migration 0036): an image blob at the widths a page shows it. */
import type { Executor } from "../../db/database.js";
import { nowIso } from "../../lib/time.js";

export interface VariantEntry {
  width: number;
  contentType: string;
  size: number;
  /** Whether WebP bytes are stored (else the source is served for this width). */
  stored: boolean;
  error: string | null;
}

/** The variants of a source, without their bytes, narrowest first; the width-0 row (if any) is the done marker. */
export async function variantEntries(db: Executor, sourceHash: string): Promise<VariantEntry[]> {
  const rows = await db
    .selectFrom("imageVariants")
    .select(["width", "contentType", "size", "error"])
    .select((eb) => eb("data", "is not", null).as("stored"))
    .where("sourceHash", "=", sourceHash)
    .orderBy("width")
    .execute();
  return rows.map((row) => ({ ...row, stored: Boolean(row.stored) }));
}

/** Which of these sources are done (their width-0 row is stored), asked in pages of ids. */
export async function sourcesDone(db: Executor, sourceHashes: readonly string[]): Promise<Set<string>> {
  const done = new Set<string>();
  for (let at = 0; at < sourceHashes.length; at += 500) {
    const rows = await db
      .selectFrom("imageVariants")
      .select("sourceHash")
      .where("width", "=", 0)
      .where("sourceHash", "in", sourceHashes.slice(at, at + 500))
      .execute();
    for (const row of rows) done.add(row.sourceHash);
  }
  return done;
}

type MadeVariant = { width: number; height: number; contentType: string; data: Buffer | undefined };

/** A width made of a source as its row (bytes null when the source is served instead). */
const variantRow = (sourceHash: string, v: MadeVariant, createdAt: string) => ({
  sourceHash,
  width: v.width,
  height: v.height,
  contentType: v.contentType,
  size: v.data?.length ?? 0,
  data: v.data ?? null,
  error: null,
  createdAt,
});

/** Stores one width a reader's request made (the job makes the others and the done marker); runs again harmlessly. */
export async function saveOneVariant(db: Executor, sourceHash: string, variant: MadeVariant): Promise<void> {
  await db
    .insertInto("imageVariants")
    .values(variantRow(sourceHash, variant, nowIso()))
    .onConflict((oc) => oc.columns(["sourceHash", "width"]).doNothing())
    .execute();
}

export async function variantData(db: Executor, sourceHash: string, width: number): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom("imageVariants")
    .select("data")
    .where("sourceHash", "=", sourceHash)
    .where("width", "=", width)
    .executeTakeFirst();
  return row?.data ? Buffer.from(row.data) : undefined;
}

/**
 * Records what was made of a source: its variants (bytes null when the source is served instead)
 * and the done marker (width 0), with the reason when nothing could be made. Runs again harmlessly.
 */
export async function saveVariants(db: Executor, sourceHash: string, variants: readonly MadeVariant[], error?: string): Promise<void> {
  const createdAt = nowIso();
  const rows = [
    ...variants.map((v) => variantRow(sourceHash, v, createdAt)),
    { sourceHash, width: 0, height: 0, contentType: "", size: 0, data: null, error: error ?? null, createdAt },
  ];
  for (const row of rows) {
    await db
      .insertInto("imageVariants")
      .values(row)
      .onConflict((oc) => oc.columns(["sourceHash", "width"]).doNothing())
      .execute();
  }
}

/** Whether a published site shows the space (only their images are made ahead of readers). */
export async function shownOnPublishedSite(db: Executor, spaceId: string): Promise<boolean> {
  const row = await db
    .selectFrom("siteSpaces")
    .innerJoin("sites", "sites.id", "siteSpaces.siteId")
    .select("siteSpaces.id")
    .where("siteSpaces.spaceId", "=", spaceId)
    .where("sites.published", "=", 1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether another job than image work is queued and due, or running: the space's images then wait. */
export async function otherWorkPending(db: Executor): Promise<boolean> {
  const now = new Date().toISOString();
  const row = await db
    .selectFrom("jobs")
    .select("id")
    .where("kind", "not in", ["image-variants", "space-image-variants"])
    .where((eb) => eb.or([eb("state", "=", "running"), eb.and([eb("state", "=", "queued"), eb("runAt", "<=", now)])]))
    .executeTakeFirst();
  return row !== undefined;
}

/** The spaces a site shows. */
export async function spacesOfSite(db: Executor, siteId: string): Promise<string[]> {
  const rows = await db.selectFrom("siteSpaces").select("spaceId").distinct().where("siteId", "=", siteId).execute();
  return rows.map((row) => row.spaceId);
}

/** What the space's images job reads of the space. */
export function spaceToWarm(db: Executor, spaceId: string) {
  return db.selectFrom("spaces").select(["id", "revisionId", "deletedAt"]).where("id", "=", spaceId).executeTakeFirst();
}
