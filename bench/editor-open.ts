import { brotliCompressSync, gzipSync } from "node:zlib";
import { chromium, type Page } from "playwright-core";
import { editorAssets } from "../src/apps/web/web.assets.js";
import { createLoginLink } from "../src/apps/web/web.queries.js";
import { freePort } from "../test/helpers/ports.js";
import { benchApp } from "./seed.js";

const text = (value: string, marks: string[] = []) => ({
  object: "text",
  leaves: [{ object: "leaf", text: value, marks: marks.map((type) => ({ object: "mark", type })) }],
});
const WORDS = "lighthouse keeper lamp wick lens beacon harbour storm signal tide reef night watch ship fog horn".split(" ");
const sentence = (n: number) => Array.from({ length: 14 }, (_, i) => WORDS[(n * 7 + i * 3) % WORDS.length]).join(" ");

function block(n: number): unknown {
  const p = (t: string) => ({ object: "block", type: "paragraph", nodes: [text(t)] });
  switch (n % 10) {
    case 0:
      return { object: "block", type: n % 20 === 0 ? "heading-1" : "heading-2", data: {}, nodes: [text(`Section ${n}`)] };
    case 3:
      return {
        object: "block",
        type: "list-unordered",
        nodes: [1, 2, 3].map((i) => ({ object: "block", type: "list-item", nodes: [p(`${sentence(n + i)}.`)] })),
      };
    case 6:
      return {
        object: "block",
        type: "code",
        data: { syntax: "js" },
        nodes: [1, 2, 3, 4].map((i) => ({
          object: "block",
          type: "code-line",
          data: {},
          nodes: [text(`const v${n}_${i} = signal(${i});`)],
        })),
      };
    case 8:
      return { object: "block", type: "hint", data: { style: "info" }, nodes: [p(`${sentence(n)}.`)] };
    default:
      return {
        object: "block",
        type: "paragraph",
        nodes: [
          {
            object: "text",
            leaves: [
              { object: "leaf", text: `${sentence(n)} `, marks: [] },
              { object: "leaf", text: "bold words", marks: [{ object: "mark", type: "bold" }] },
              { object: "leaf", text: ` and ${sentence(n + 1)}.`, marks: [] },
            ],
          },
        ],
      };
  }
}

function documentOf(blocks: number) {
  return { object: "document", data: {}, nodes: Array.from({ length: blocks }, (_, i) => block(i)) };
}

/** About `bytes` of document JSON. */
function documentOfSize(bytes: number) {
  let blocks = 1000;
  while (JSON.stringify(documentOf(blocks)).length < bytes) blocks = Math.ceil(blocks * 1.3);
  return documentOf(blocks);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)]!;
};

// BENCH_COLLAB=false measures the editor saving over HTTP (the page carries the document) instead
// of live collaboration (the default: the document comes over the WebSocket).
const COLLAB = process.env.BENCH_COLLAB !== "false";

const READY = '#quire-editor[data-ready="true"] .qe-editor[contenteditable="true"] > p';

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  /** The thread's own CPU time (µs) for complete events. */
  tdur?: number;
  args?: { name?: string; data?: { type?: string; duration?: number; timeStamp?: number } };
}

type Quire = { quireEditor: { editor: import("@tiptap/core").Editor } };

/**
 * Puts the caret at the end of the middle paragraph of the page (by the document, as a long page
 * draws only the blocks near the window), once that paragraph is drawn, clicked and focused.
 */
async function caretInMiddle(page: Page): Promise<{ blocks: number; at: number; before: string }> {
  const { blocks, at } = await page.evaluate(() => {
    const { editor } = (window as unknown as Quire).quireEditor;
    const paragraphs: number[] = [];
    editor.state.doc.forEach((child, offset) => {
      if (child.type.name === "paragraph") paragraphs.push(offset);
    });
    const at = paragraphs[Math.floor(paragraphs.length / 2)]!;
    editor
      .chain()
      .setTextSelection(at + 1)
      .scrollIntoView()
      .run();
    return { blocks: editor.state.doc.childCount, at };
  });
  await page.waitForFunction((at) => (window as unknown as Quire).quireEditor.editor.view.nodeDOM(at)?.nodeName === "P", at);
  const element = await page.evaluateHandle((at) => (window as unknown as Quire).quireEditor.editor.view.nodeDOM(at) as HTMLElement, at);
  await element.asElement()!.click();
  // The caret at the paragraph's end (End would stop at the end of its first line).
  await page.evaluate((at) => {
    const { editor } = (window as unknown as Quire).quireEditor;
    editor.commands.setTextSelection(at + editor.state.doc.nodeAt(at)!.nodeSize - 1);
  }, at);
  return { blocks, at, before: await textAt(page, at) };
}

const textAt = (page: Page, at: number) =>
  page.evaluate((at) => (window as unknown as Quire).quireEditor.editor.state.doc.nodeAt(at)?.textContent ?? "", at);

/**
 * Types `keys` keys at the end of a paragraph in the middle of the page, under a Chromium
 * performance trace, and reads each keystroke's input-to-paint latency from the trace's Event
 * Timing records: from the key's time stamp to the frame painted after its handlers ran, the
 * longest of its keydown, keypress, beforeinput, input and keyup.
 */
async function typeInto(page: Page, url: string, keys: number): Promise<{ blocks: number; latencies: number[]; cpu: number[] }> {
  await page.goto(url);
  await page.locator(READY).first().waitFor({ timeout: 120_000 });
  const { blocks, at, before } = await caretInMiddle(page);
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (data) => {
    events.push(...(data.value as unknown as TraceEvent[]));
  });
  const done = new Promise<void>((resolve) => cdp.once("Tracing.tracingComplete", () => resolve()));
  await cdp.send("Tracing.start", { categories: "devtools.timeline,disabled-by-default-devtools.timeline", transferMode: "ReportEvents" });
  let text = "";
  for (let i = 0; i < keys; i++) {
    const space = i % 20 === 19;
    await page.keyboard.press(space ? "Space" : "KeyA");
    text += space ? " " : "a";
    await page.waitForTimeout(40);
  }
  await page.waitForTimeout(500);
  await cdp.send("Tracing.end");
  await done;
  await cdp.detach();
  // What was typed went where it was typed (a bench typing elsewhere measures nothing).
  const after = (await textAt(page, at)).replace(/\u00a0/g, " ");
  if (!after.startsWith(before.trimEnd()) || !after.trimEnd().endsWith(text.trimEnd()))
    throw new Error(`the keys did not land at the end of the paragraph: ${JSON.stringify(after.slice(-80))}`);
  const timing = events
    .filter((e) => e.name === "EventTiming" && e.ph === "b" && e.args?.data?.duration !== undefined)
    .map((e) => ({ ts: e.ts, ...(e.args!.data as { type: string; duration: number; timeStamp: number }) }))
    .sort((a, b) => a.timeStamp - b.timeStamp);
  const downs = timing.filter((e) => e.type === "keydown");
  if (downs.length !== keys) throw new Error(`the trace holds ${downs.length} keydowns for ${keys} keys`);
  const latencies = downs.map((down, i) => {
    const next = downs[i + 1]?.timeStamp ?? Number.POSITIVE_INFINITY;
    return Math.max(...timing.filter((e) => e.timeStamp >= down.timeStamp && e.timeStamp < next).map((e) => e.duration));
  });
  // The renderer's main thread: its own CPU time from one keydown to the next (on a loaded
  // machine the latency above also holds the time spent waiting for a core; this does not).
  const main = events.find((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain");
  const tasks = events.filter((e) => e.name === "RunTask" && e.ph === "X" && e.pid === main?.pid && e.tid === main?.tid);
  const cpu = downs.map((down, i) => {
    const next = downs[i + 1]?.ts ?? Number.POSITIVE_INFINITY;
    return tasks.filter((t) => t.ts >= down.ts && t.ts < next).reduce((sum, t) => sum + (t.tdur ?? 0) / 1000, 0);
  });
  if (process.env.BENCH_TRACE) {
    // The main thread's trace events by name: their own CPU time per key (nested events count in their parents too).
    const byName = new Map<string, number>();
    for (const e of events)
      if (e.ph === "X" && e.pid === main?.pid && e.tid === main?.tid && e.ts >= downs[0]!.ts && e.tdur !== undefined)
        byName.set(e.name, (byName.get(e.name) ?? 0) + e.tdur / 1000 / keys);
    // Event dispatches by event type, and what runs inside them (by name).
    const mine = events.filter(
      (e) => e.ph === "X" && e.pid === main?.pid && e.tid === main?.tid && e.ts >= downs[0]!.ts && e.tdur !== undefined,
    );
    const dispatches = mine.filter((e) => e.name === "EventDispatch");
    const byType = new Map<string, number>();
    const inside = new Map<string, number>();
    for (const d of dispatches) {
      const type = d.args?.data?.type ?? "?";
      byType.set(type, (byType.get(type) ?? 0) + d.tdur! / 1000 / keys);
      const end = d.ts + ((d as { dur?: number }).dur ?? 0);
      for (const e of mine)
        if (e !== d && e.ts >= d.ts && e.ts < end && e.name !== "EventDispatch")
          inside.set(`${type}>${e.name}`, (inside.get(`${type}>${e.name}`) ?? 0) + e.tdur! / 1000 / keys);
    }
    const top = (m: Map<string, number>) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 14)
        .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
        .join(", ");
    console.log(`${blocks}-block page, event dispatches by type, CPU ms per key: ${top(byType)}; inside them: ${top(inside)}`);
    console.log(
      `${blocks}-block page, main-thread trace events, CPU ms per key: ${[...byName]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 22)
        .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
        .join(", ")}`,
    );
  }
  return { blocks, latencies, cpu };
}

/** Milliseconds per keystroke by function (total: itself and what it calls), from a CPU profile of `keys` keystrokes into the page. */
async function profileTyping(page: Page, url: string, keys: number): Promise<Map<string, number>> {
  await page.goto(url);
  await page.locator(READY).first().waitFor({ timeout: 120_000 });
  await caretInMiddle(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  for (let i = 0; i < keys; i++) {
    await page.keyboard.press("KeyB");
    await page.waitForTimeout(60);
  }
  await page.waitForTimeout(500);
  const { profile } = await cdp.send("Profiler.stop");
  await cdp.detach();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const total = new Map<string, number>();
  profile.samples?.forEach((id, i) => {
    const ms = (profile.timeDeltas?.[i] ?? 0) / 1000 / keys;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const key = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber + 1}`;
      if (!seen.has(key)) total.set(key, (total.get(key) ?? 0) + ms);
      seen.add(key);
    }
  });
  return total;
}

/**
 * BENCH_PROFILE: CPU profiles of typing into the 20-block and the 2,000-block page (QUIRE_EDITOR_MINIFY=0
 * keeps the functions' names): the functions by what they cost per key on the big page beyond the
 * small one. The profiler samples wall time: on a loaded machine, waits for a core count too.
 */
async function profileBoth(page: Page, small: string, big: string): Promise<void> {
  const keys = Number(process.env.BENCH_PROFILE_KEYS ?? 40);
  const a = await profileTyping(page, small, keys);
  const b = await profileTyping(page, big, keys);
  const rows = [...b]
    .map(([key, ms]) => ({ key, big: ms, small: a.get(key) ?? 0 }))
    .filter((r) => !r.key.startsWith("(root)") && !r.key.startsWith("(idle)"));
  console.log(`CPU per key by function (total), the 2,000-block page, the 20-block page (${keys} keys each), by the difference:`);
  console.log(
    rows
      .sort((x, y) => y.big - y.small - (x.big - x.small))
      .slice(0, Number(process.env.BENCH_PROFILE_ROWS ?? 40))
      .map((r) => `${r.big.toFixed(2).padStart(6)} ${r.small.toFixed(2).padStart(6)} ms  ${r.key}`)
      .join("\n"),
  );
}

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const bench = await benchApp({
    tmpPrefix: "quire-bench-editor-",
    publicUrl: base,
    env: { QUIRE_PUBLIC_URL: base, ...(COLLAB ? {} : { QUIRE_COLLAB: "false" }) },
  });
  const { app: probe, handle, organization, token } = bench;
  await probe.listen({ port, host: "127.0.0.1" });
  console.log(`editor ${COLLAB ? "with live collaboration" : "saving over HTTP (QUIRE_COLLAB=false)"}`);
  const auth = { authorization: `Bearer ${token}` };
  const api = async (method: string, url: string, payload?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...auth, ...(payload ? { "content-type": "application/json" } : {}) },
      body: payload ? JSON.stringify(payload) : null,
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const space = await api("POST", `/v1/orgs/${organization.id}/spaces`, { title: "Docs" });
  const cr = await api("POST", `/v1/spaces/${space.id}/change-requests`, { subject: "Bench" });
  const large = documentOfSize(1_000_000);
  const twoThousand = documentOf(2000);
  const inserted = await api("POST", `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
    changes: [
      { operation: "insert_page", ref: "large", title: "Large", document: { document: large } },
      { operation: "insert_page", ref: "blocks", title: "Blocks", document: { document: twoThousand } },
      { operation: "insert_page", ref: "small", title: "Small", document: { document: documentOf(20) } },
    ],
  });
  const [largeId, blocksId, smallId] = inserted.changes.map((c: { page: { id: string } }) => c.page.id);
  const owner = await handle.db.selectFrom("users").select("id").executeTakeFirstOrThrow();
  const edit = (pageId: string) => `${base}/app/o/${organization.id}/s/${space.id}/~/changes/${cr.number}/p/${pageId}/edit`;

  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") console.error(`browser: ${message.text()}`);
    });
    const { token: login } = await createLoginLink(handle.db, owner.id);
    await page.goto(`${base}/app/login/link/${login}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/app`);

    const openOnce = async (pageId: string) => {
      const started = performance.now();
      await page.goto(edit(pageId));
      // Ready to type: the editor is editable and shows the page (with collaboration, once the
      // server's document has arrived over the WebSocket).
      await page
        .locator('#quire-editor[data-ready="true"] .qe-editor[contenteditable="true"] > p')
        .first()
        .waitFor({ timeout: 120_000 })
        .catch(async (error: unknown) => {
          throw new Error(`the editor did not open (its status line: "${await page.locator("#qe-status").textContent()}"): ${error}`);
        });
      const ready = performance.now() - started;
      const marks = await page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const script = performance.getEntriesByType("resource").find((r) => r.name.endsWith("/editor.js")) as
          | PerformanceResourceTiming
          | undefined;
        const marks = Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, Math.round(m.startTime)]));
        return {
          response: Math.round(nav.responseEnd),
          domInteractive: Math.round(nav.domInteractive),
          script: Math.round(script?.responseEnd ?? -1),
          ...marks,
        };
      });
      if (process.env.BENCH_MARKS) console.log(JSON.stringify(marks));
      await page.locator(".qe-editor > p").first().click();
      await page.keyboard.type("Q");
      await page.waitForFunction(() => document.querySelector(".qe-editor p")?.textContent?.includes("Q"));
      return { ready, input: performance.now() - started };
    };
    const documentBytes = JSON.stringify(large).length;
    await openOnce(largeId); // warm-up: builds the bundle, fills caches
    if (process.env.BENCH_OPEN_PROFILE) {
      // Where the browser's main thread spends an opening: functions by self time.
      await page.goto("about:blank");
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 500 });
      await cdp.send("Profiler.start");
      await openOnce(largeId);
      const { profile } = await cdp.send("Profiler.stop");
      await cdp.detach();
      const byId = new Map(profile.nodes.map((node) => [node.id, node]));
      const self = new Map<string, number>();
      profile.samples?.forEach((id, i) => {
        const frame = byId.get(id)!.callFrame;
        const key = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber}`;
        self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
      });
      console.log(
        [...self]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 30)
          .map(([k, v]) => `${v.toFixed(0)} ms self ${k}`)
          .join("\n"),
      );
    }
    const opens: Array<{ ready: number; input: number }> = [];
    for (let i = 0; i < Number(process.env.BENCH_OPENS ?? 5); i++) {
      await page.goto("about:blank");
      opens.push(await openOnce(largeId));
    }
    if (opens.length)
      console.log(
        `open a ${(documentBytes / 1e6).toFixed(2)} MB page (${large.nodes.length} blocks): editor ready median ${median(opens.map((o) => o.ready)).toFixed(0)} ms, first input accepted median ${median(opens.map((o) => o.input)).toFixed(0)} ms (runs: ${opens.map((o) => o.input.toFixed(0)).join(", ")})`,
      );

    const KEYS = Number(process.env.BENCH_KEYS ?? 200);
    const typed: Array<{ blocks: number; latencies: number[]; cpu: number[] }> = [];
    for (const pageId of [smallId, blocksId]) typed.push(await typeInto(page, edit(pageId), KEYS));
    const [baseline, big] = typed as [(typeof typed)[0], (typeof typed)[0]];
    const line = (t: (typeof typed)[0]) =>
      `p50 ${percentile(t.latencies, 50).toFixed(1)} ms, p95 ${percentile(t.latencies, 95).toFixed(1)} ms, max ${Math.max(...t.latencies).toFixed(1)} ms (main-thread CPU per key p50 ${percentile(t.cpu, 50).toFixed(1)} ms, p95 ${percentile(t.cpu, 95).toFixed(1)} ms)`;
    console.log(
      `typing ${KEYS} keys, input to paint (Event Timing in a Chromium trace): ${baseline.blocks}-block page ${line(baseline)}; ${big.blocks}-block page ${line(big)} (p95 ${(percentile(big.latencies, 95) / percentile(baseline.latencies, 95)).toFixed(2)}× the ${baseline.blocks}-block page's)`,
    );
    if (process.env.BENCH_PROFILE) await profileBoth(page, edit(smallId), edit(blocksId));
  } finally {
    await browser.close();
  }
  const bundle = await editorAssets();
  const js = bundle.files.get("editor.js")!.body;
  const css = bundle.files.get("editor.css")!.body;
  console.log(
    `editor bundle: editor.js ${(js.length / 1024).toFixed(0)} KiB minified, ${(gzipSync(js, { level: 9 }).length / 1024).toFixed(0)} KiB gzip, ${(brotliCompressSync(js).length / 1024).toFixed(0)} KiB brotli; editor.css ${(gzipSync(css).length / 1024).toFixed(1)} KiB gzip`,
  );
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
