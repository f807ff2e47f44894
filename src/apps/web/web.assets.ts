/** The renderer's static files (content.css, content.js, KaTeX, mermaid) as the app serves them: read once, under a fingerprinted prefix. */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { contentAssets } from "../../content/html/index.js";

export interface AppAssets {
  /** `/app/assets/<hash of every asset>`: a new deployment with other files gets new addresses. */
  prefix: string;
  files: Map<string, { body: Buffer; contentType: string }>;
}

let assetsCache: AppAssets | undefined;

/** The renderer's static files, read once and served under a fingerprinted prefix. */
export function appAssets(): AppAssets {
  if (assetsCache) return assetsCache;
  const hash = createHash("sha256");
  const files = new Map<string, { body: Buffer; contentType: string }>();
  for (const asset of contentAssets()) {
    const body = readFileSync(asset.path);
    hash.update(asset.name).update(body);
    files.set(asset.name, { body, contentType: asset.contentType });
  }
  assetsCache = { prefix: `/app/assets/${hash.digest("hex").slice(0, 16)}`, files };
  return assetsCache;
}

/**
 * The block editor's script (src/apps/web/editor/, browser TypeScript), bundled by esbuild on first
 * use and kept for the process, under its own fingerprint: only the edit view links it.
 */
export interface EditorAssets {
  /** `/app/assets/<hash of the bundle>`. */
  prefix: string;
  /** `editor.js`, `editor.css`, and the bundles it loads when needed (`editor-code.js`, `editor-math.js`). */
  files: Map<string, { body: Buffer; contentType: string }>;
}

// Resolves to <repo>/src/apps/web/editor from src/apps/web and from dist/apps/web alike (as content/html/assets.ts).
const EDITOR_SOURCE = fileURLToPath(new URL("../../../src/apps/web/editor/", import.meta.url));

let editorCache: Promise<EditorAssets> | undefined;

/** The editor's bundle: built once per process (a failed build is retried on the next request). */
export function editorAssets(): Promise<EditorAssets> {
  editorCache ??= buildEditor().catch((error: unknown) => {
    editorCache = undefined;
    throw error;
  });
  return editorCache;
}

async function buildEditor(): Promise<EditorAssets> {
  const { build } = await import("esbuild");
  const result = await build({
    // editor-code.js (highlight.js) and editor-math.js (KaTeX): loaded by the editor when a page needs them (lazy.ts).
    entryPoints: {
      editor: join(EDITOR_SOURCE, "main.ts"),
      "editor-code": join(EDITOR_SOURCE, "lazy/code.ts"),
      "editor-math": join(EDITOR_SOURCE, "lazy/math.ts"),
    },
    bundle: true,
    // QUIRE_EDITOR_MINIFY=0 keeps names (profiling the editor).
    minify: process.env.QUIRE_EDITOR_MINIFY !== "0",
    format: "iife",
    target: ["chrome111", "firefox115", "safari16"],
    platform: "browser",
    write: false,
    outdir: "out",
    legalComments: "none",
    logLevel: "silent",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const hash = createHash("sha256");
  const files = new Map<string, { body: Buffer; contentType: string }>();
  for (const output of result.outputFiles) {
    const name = basename(output.path);
    const body = Buffer.from(output.contents);
    hash.update(name).update(body);
    files.set(name, { body, contentType: name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8" });
  }
  files.set("editor.css", { body: readFileSync(join(EDITOR_SOURCE, "editor.css")), contentType: "text/css; charset=utf-8" });
  hash.update(files.get("editor.css")!.body);
  return { prefix: `/app/assets/${hash.digest("hex").slice(0, 16)}`, files };
}

/** The asset at `/app/assets/<hash>/<name>`, if it is one of the renderer's or the editor's (built on first use). */
export async function assetAt(hash: string, name: string): Promise<{ body: Buffer; contentType: string } | undefined> {
  const content = appAssets();
  if (content.prefix.endsWith(`/${hash}`)) return content.files.get(name);
  // A page served by this process before (or by another process of the same version) links the editor's bundle.
  const editor = await editorAssets().catch(() => undefined);
  return editor?.prefix.endsWith(`/${hash}`) ? editor.files.get(name) : undefined;
}
