/**
 * Two steps of micromark 4 whose cost grows with the square of a block's size, each replaced by a
 * linear one that gives the same event list. Imported for its effect by parse.ts, so every thread
 * that parses Markdown (the server's and each worker's) has it.
 *
 * 1. Text content ends with `resolveAllText` (micromark/lib/initialize/text.js), which merges
 *    runs of adjacent `data` tokens with one `splice` of the paragraph's whole event list per run.
 *    Data is cut at every character that may start a construct (GFM's email autolinks make that
 *    every word) and a run ends at each line ending, so a paragraph, block quote or hint body of n
 *    lines cost about n² (1 MB of short lines: 17 s). `mergeDataRuns` does the same merge first,
 *    in one pass; the original then finds only single data tokens, which it leaves alone, and goes
 *    on to its line-suffix pass (an edit map, linear).
 * 2. The document tokenizer moves a closed container's exits back before its last flow chunk with
 *    an `EditMap` (micromark-util-edit-map), whose `consume` copies the document's whole event
 *    list to change its last few events: once per list item closed, so a long nested list cost
 *    about n² (512 KB: 68 s). `consumeFromFirstEdit` leaves the events before the first edit where
 *    they are and rebuilds only the rest, with the same result.
 *
 * micromark exports neither its initializers nor a way to replace them, so the modules are
 * patched where they are loaded: the text initializer is imported by its file (as math-syntax.ts
 * does; the same file URL is the same module instance micromark's parser uses), the edit map
 * through its prototype. Both builds are patched, as the `development` condition picks dev/.
 * A version of micromark that moves these files makes `patchedBuilds` fall short, which a test checks.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Event, Resolver } from "micromark-util-types";

type Change = [at: number, remove: number, add: Event[]];
type EditMapPrototype = { consume(this: { map: Change[]; index: Map<number, Change> }, events: Event[]): undefined };
type Patch = { apply(): void; restore(): void };

/** Merges each run of adjacent `data` tokens into its first token, in one pass over `events`. */
export function mergeDataRuns(events: Event[]): Event[] {
  let write = 0;
  let read = 0;
  while (read < events.length) {
    const event = events[read]!;
    if (event[0] === "enter" && event[1].type === "data") {
      // A data token is always its `enter` then its `exit` (it has no children).
      let last = read;
      while (last + 2 < events.length && events[last + 2]![0] === "enter" && events[last + 2]![1].type === "data") last += 2;
      if (last !== read) event[1].end = events[last + 1]![1].end;
      events[write++] = event;
      events[write++] = events[read + 1]!;
      read = last + 2;
      continue;
    }
    events[write++] = event;
    read++;
  }
  movedEvents += events.length;
  events.length = write;
  return events;
}

/**
 * `EditMap.prototype.consume`, rebuilding only from the first edit on. Like the original, the
 * events kept after edit k are those from `at + remove` of k up to the `at` of the next edit.
 */
function consumeFromFirstEdit(this: { map: Change[]; index: Map<number, Change> }, events: Event[]): undefined {
  const map = this.map;
  map.sort((a, b) => a[0] - b[0]);
  if (map.length === 0) return;
  const first = map[0]![0];
  const tail = events.slice(first);
  const end = first + tail.length;
  events.length = first;
  let cursor = first;
  for (const [at, remove, add] of map) {
    for (let i = cursor; i < at; i++) events.push(tail[i - first]!);
    for (const event of add) events.push(event);
    cursor = at + remove;
  }
  for (let i = cursor; i < end; i++) events.push(tail[i - first]!);
  movedEvents += tail.length;
  map.length = 0;
  this.index.clear();
}

const patches: Patch[] = [];
let movedEvents = 0;

/** Events the two steps have visited or copied since the last call (a work count for tests), then resets. */
export function takeMovedEvents(): number {
  const out = movedEvents;
  movedEvents = 0;
  return out;
}
const require = createRequire(import.meta.url);

/** The package's directory: its entry may be in dev/ (the `development` condition) or at the top. */
function packageRoot(entry: string): string {
  let dir = path.dirname(entry);
  while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

async function importBuilds<T>(entry: string, files: (root: string) => string[]): Promise<T[]> {
  const root = packageRoot(entry);
  const found = files(root).filter((file) => existsSync(file));
  return Promise.all(found.map(async (file) => (await import(pathToFileURL(file).href)) as T));
}

const textModules = await importBuilds<{ text: { resolveAll?: Resolver } }>(require.resolve("micromark"), (root) => [
  path.join(root, "lib", "initialize", "text.js"),
  path.join(root, "dev", "lib", "initialize", "text.js"),
]);
for (const { text } of textModules) {
  const original = text.resolveAll;
  if (!original) continue;
  const linear: Resolver = (events, context) => original(mergeDataRuns(events), context);
  patches.push({
    apply: () => {
      text.resolveAll = linear;
    },
    restore: () => {
      text.resolveAll = original;
    },
  });
}

const editMapModules = await importBuilds<{ EditMap: { prototype: EditMapPrototype } }>(
  require.resolve("micromark-util-edit-map"),
  (root) => [path.join(root, "index.js"), path.join(root, "dev", "index.js")],
);
for (const { EditMap } of editMapModules) {
  const original = EditMap.prototype.consume;
  patches.push({
    apply: () => {
      EditMap.prototype.consume = consumeFromFirstEdit;
    },
    restore: () => {
      EditMap.prototype.consume = original;
    },
  });
}

for (const patch of patches) patch.apply();

/** How many modules were patched: the text initializer and the edit map, each in two builds. */
export const patchedModules = patches.length;

/** Runs `fn` with micromark's own steps back in place (tests compare the two results). */
export function withMicromarkOriginals<T>(fn: () => T): T {
  for (const patch of patches) patch.restore();
  try {
    return fn();
  } finally {
    for (const patch of patches) patch.apply();
  }
}
