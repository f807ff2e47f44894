/**
 * The Git sync jobs (import and export): their payloads and definitions; the work is in
 * git-sync.service.ts. Credentials travel sealed (see lib/sealed.ts), never in clear.
 */
import { defineJob } from "../../jobs/registry.js";
import type { Sealed } from "../../lib/sealed.js";
import { runGitExport, runGitImport } from "./git-sync.service.js";

export interface GitSyncJobBase {
  spaceId: string;
  /** Remote URL without credentials. */
  remote: string;
  /** "username:password" sealed under the instance key, when the URL carried credentials. */
  credentials?: Sealed;
  ref: string;
  projectDirectory: string;
  /** When the triggering event happened: older operations than the last applied one are skipped. */
  timestamp?: string;
  force: boolean;
  repoTreeURL?: string;
  repoCommitURL?: string;
  actorId: string;
  requestedAt: string;
}

export interface GitImportPayload extends GitSyncJobBase {
  standalone: boolean;
}

export interface GitExportPayload extends GitSyncJobBase {
  commitMessage: string;
}

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "git-import": GitImportPayload;
    "git-export": GitExportPayload;
  }
}

export const gitImportJob = defineJob({
  kind: "git-import",
  maxAttempts: 5,
  run: (payload, ctx) => runGitImport(ctx, payload),
});

export const gitExportJob = defineJob({
  kind: "git-export",
  maxAttempts: 5,
  run: (payload, ctx) => runGitExport(ctx, payload),
});
