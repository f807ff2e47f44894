/** Payloads of the Git sync jobs. Credentials travel sealed (see lib/sealed.ts), never in clear. */
import type { Sealed } from "../../lib/sealed.js";

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

export const CREDENTIALS_PURPOSE = "git-credentials";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "git-import": GitImportPayload;
    "git-export": GitExportPayload;
  }
}
