/**
 * Forgets what sign-in no longer needs: expired web sessions and sign-in links, SAML requests
 * nobody answered in time and used assertions past their validity (a replay of those is refused
 * by its time window anyway). Runs periodically.
 */
import { defineJob } from "../../jobs/registry.js";
import { purgeExpiredOidcLogins } from "../../modules/oidc/oidc.queries.js";
import { purgeExpiredSaml } from "../../modules/saml/saml.queries.js";
import { purgeExpiredSessions } from "./web.queries.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "purge-expired-sign-ins": Record<string, never>;
  }
}

export const purgeExpiredSignInsJob = defineJob({
  kind: "purge-expired-sign-ins",
  maxAttempts: 3,
  everyMs: 60 * 60_000,
  async run(_payload, { db }) {
    await purgeExpiredSessions(db);
    await purgeExpiredSaml(db);
    await purgeExpiredOidcLogins(db);
  },
});
