import type { DialectName } from "../../db/database.js";
import type { FullTextIndex } from "./fulltext.js";
import { postgresFullText } from "./fulltext.postgres.js";
import { sqliteFullText } from "./fulltext.sqlite.js";

/** The full-text engine of the database in use. */
export function fullTextIndex(dialect: DialectName): FullTextIndex {
  return dialect === "postgres" ? postgresFullText : sqliteFullText;
}
