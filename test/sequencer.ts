/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`). Two workers take files
 * from one queue: a long file that starts last finishes alone while the other core idles, so the
 * longest files start first and the run ends on short ones.
 *
 * - Projects stay together, in a fixed order (PROJECT_ORDER): a worker changing project starts a
 *   new process and loads the app's modules again, so interleaving them would cost more than it
 *   gains. The database-free project comes last: its many short files fill the end of the run.
 * - Within a project, the files test/durations.json knows come first, longest first (the seconds a
 *   file took in a whole CI run, written by scripts/slowest-tests.mjs --durations), then the rest
 *   by size, largest first. A clean clone has no vitest cache of durations (it lives in
 *   node_modules), so vitest's own sequencer would order a CI run by size alone, which puts a small
 *   but slow file (a generated matrix of cases, hostile inputs) anywhere, possibly last.
 * - sequence.groupOrder is honoured as by vitest: a later group starts when the earlier one ends.
 */
import fs from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Projects in the order they start; a project not listed starts before the database-free one. */
const PROJECT_ORDER = ["pdf-robustness", "postgres", "sqlite", "database-free"];

const durationsFile = path.join(import.meta.dirname, "durations.json");

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const known: Record<string, number> = fs.existsSync(durationsFile) ? JSON.parse(fs.readFileSync(durationsFile, "utf8")).seconds : {};
    const relative = (spec: TestSpecification) => path.relative(root, spec.moduleId).split(path.sep).join("/");
    const size = new Map(files.map((spec) => [spec, fs.existsSync(spec.moduleId) ? fs.statSync(spec.moduleId).size : 0]));
    const projectRank = (spec: TestSpecification) => {
      const rank = PROJECT_ORDER.indexOf(spec.project.name);
      return rank === -1 ? PROJECT_ORDER.length - 1.5 : rank;
    };
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return projectRank(a) - projectRank(b) || (a.project.name < b.project.name ? -1 : 1);
      const secondsA = known[relative(a)];
      const secondsB = known[relative(b)];
      if (secondsA !== undefined || secondsB !== undefined) return (secondsB ?? -1) - (secondsA ?? -1);
      return size.get(b)! - size.get(a)!;
    });
  }
}
