/** Job kinds that exist only in tests (test/hardening/jobs.test.ts and its worker process). */
declare module "../../src/jobs/registry.js" {
  interface JobPayloads {
    "test-hold": { label: string };
  }
}

export {};
