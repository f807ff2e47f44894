/**
 * Who makes a request: the user behind an API token or a web session, with a per-request memo of
 * their access. Authentication (http/authenticate.ts, the app's session) makes it; loaders, policies
 * and services below the routes take it, so it lives here, below them all.
 */
import type { UserRow } from "../db/schema.js";
import type { AccessCache } from "./access.js";

export interface Actor {
  /** Frozen: shared by the requests made with the same token while the database is unchanged. */
  user: Readonly<UserRow>;
  tokenId: string;
  /** Per-request memo of the caller's access to each organization. */
  access: AccessCache;
}
