/** Git import and export jobs (the work is in modules/git-sync/git-sync.service.ts). */

import type {} from "../../modules/git-sync/git-sync.payloads.js";
import { runGitExport, runGitImport } from "../../modules/git-sync/git-sync.service.js";
import { defineJob } from "../registry.js";

export const gitImportJob = defineJob({
  kind: "git-import",
  maxAttempts: 5,
  leaseMs: 30 * 60_000,
  run: (payload, ctx) => runGitImport(ctx, payload),
});

export const gitExportJob = defineJob({
  kind: "git-export",
  maxAttempts: 5,
  leaseMs: 30 * 60_000,
  run: (payload, ctx) => runGitExport(ctx, payload),
});
