import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ContentAsset {
  /** Path under which to serve it. Names with a "/" keep their relative layout (KaTeX's CSS loads "fonts/…" next to itself). */
  name: string;
  path: string;
  contentType: string;
}

// Resolves to <repo>/src/content/html/assets from src/content/html and from dist/content/html alike.
const OWN = fileURLToPath(new URL("../../../src/content/html/assets/", import.meta.url));

const FONT_TYPES: Record<string, string> = { woff2: "font/woff2", woff: "font/woff", ttf: "font/ttf" };

let cached: ContentAsset[] | undefined;

/**
 * Static files the rendered HTML needs. A page links content.css always; content.js (copy buttons,
 * tabs, notes, theme-aware images) always, `defer`; katex/katex.min.css when `features` has "math";
 * mermaid.min.js (`defer`, before content.js, which starts it) when it has "mermaid".
 * The KaTeX fonts must be served at katex/fonts/<name> next to katex/katex.min.css: if the site
 * fingerprints, fingerprint the directory (e.g. /_q/<hash>/katex/…), not each file's name.
 */
export function contentAssets(): ContentAsset[] {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const katexDir = dirname(require.resolve("katex/dist/katex.min.css"));
  const mermaid = require.resolve("mermaid/dist/mermaid.min.js");
  const fonts = readdirSync(join(katexDir, "fonts"))
    .map((file) => ({ file, type: FONT_TYPES[file.slice(file.lastIndexOf(".") + 1)] }))
    .filter((font): font is { file: string; type: string } => font.type !== undefined)
    .sort((a, b) => (a.file < b.file ? -1 : 1))
    .map(({ file, type }) => ({ name: `katex/fonts/${file}`, path: join(katexDir, "fonts", file), contentType: type }));
  cached = [
    { name: "content.css", path: join(OWN, "content.css"), contentType: "text/css; charset=utf-8" },
    { name: "content.js", path: join(OWN, "content.js"), contentType: "text/javascript; charset=utf-8" },
    { name: "katex/katex.min.css", path: join(katexDir, "katex.min.css"), contentType: "text/css; charset=utf-8" },
    ...fonts,
    { name: "mermaid.min.js", path: mermaid, contentType: "text/javascript; charset=utf-8" },
  ];
  return cached;
}
