/** Every job kind the worker runs, and the periodic ones it schedules. */

import { openapiProcessJob, openapiRefreshJob, REFRESH_SCAN_EVERY_MS } from "../modules/openapi/openapi.jobs.js";
import { gitExportJob, gitImportJob } from "./handlers/git-sync.job.js";
import { purgeDeletedSpacesJob } from "./handlers/purge-deleted-spaces.job.js";
import { searchIndexJob } from "./handlers/search-index.job.js";
import type { JobDefinition, PeriodicJob } from "./registry.js";

export const jobDefinitions: readonly JobDefinition<any>[] = [
  purgeDeletedSpacesJob,
  searchIndexJob,
  gitImportJob,
  gitExportJob,
  openapiProcessJob,
  openapiRefreshJob,
];

export const periodicJobs: PeriodicJob[] = [
  { kind: "purge-deleted-spaces", everyMs: 60 * 60_000 },
  // Finds the URL specs due for a re-fetch (QUIRE_OPENAPI_REFRESH_MINUTES after their last fetch).
  { kind: "openapi-refresh", everyMs: REFRESH_SCAN_EVERY_MS },
];
