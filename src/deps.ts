import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Db, DialectName } from "./db/database.js";
import type { Urls } from "./http/urls.js";

/** Everything route modules and services need, passed explicitly (no global state). */
export interface Deps {
  config: Config;
  db: Db;
  dialect: DialectName;
  urls: Urls;
  log: Logger;
  /** Instance secret for signed URLs (see loadInstanceSecret). */
  secret: string;
  /** Wakes this process's job worker after a transaction that enqueued jobs has committed. */
  notifyJobs: () => void;
}
