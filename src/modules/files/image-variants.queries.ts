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
export async function saveVariants(
  db: Executor,
  sourceHash: string,
  variants: readonly { width: number; height: number; contentType: string; data: Buffer | undefined }[],
  error?: string,
): Promise<void> {
  const createdAt = nowIso();
  const rows = [
    ...variants.map((v) => ({
      sourceHash,
      width: v.width,
      height: v.height,
      contentType: v.contentType,
      size: v.data?.length ?? 0,
      data: v.data ?? null,
      error: null,
      createdAt,
    })),
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
