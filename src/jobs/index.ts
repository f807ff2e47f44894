/** Every job kind the worker runs, and the periodic ones it schedules. */
import { conversationsAnalyseJob } from "../modules/conversations/conversations.jobs.js";
import { gitExportJob, gitImportJob } from "./handlers/git-sync.job.js";
import { purgeDeletedSpacesJob } from "./handlers/purge-deleted-spaces.job.js";
import { searchIndexJob } from "./handlers/search-index.job.js";
import type { JobDefinition, PeriodicJob } from "./registry.js";

export const jobDefinitions: readonly JobDefinition<any>[] = [
  purgeDeletedSpacesJob,
  searchIndexJob,
  gitImportJob,
  gitExportJob,
  conversationsAnalyseJob,
];

export const periodicJobs: PeriodicJob[] = [{ kind: "purge-deleted-spaces", everyMs: 60 * 60_000 }];
