/**
 * git_redirects rows belong to their space: a foreign key with ON DELETE CASCADE removes them with
 * it, as revisions are, so purging a space need not know the table. SQLite cannot add a foreign key
 * to a table, so the table is rebuilt (on both databases alike); rows of spaces already gone, which
 * the key would refuse, are left behind.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("git_redirects").renameTo("git_redirects_0017").execute();
  await db.schema
    .createTable("git_redirects")
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("from_path", "text", (c) => c.notNull())
    .addColumn("page_id", "text", (c) => c.notNull())
    // Not git_redirects_pk: on PostgreSQL that name still belongs to the old table until it is dropped.
    .addPrimaryKeyConstraint("git_redirects_space_path_pk", ["space_id", "from_path"])
    .execute();
  await db
    .insertInto("git_redirects")
    .columns(["space_id", "from_path", "page_id"])
    .expression(
      db
        .selectFrom("git_redirects_0017")
        .select(["space_id", "from_path", "page_id"])
        .where("space_id", "in", db.selectFrom("spaces").select("id")),
    )
    .execute();
  await db.schema.dropTable("git_redirects_0017").execute();
}
