/**
 * Parts of the editor that only some pages need, in bundles of their own loaded on first use:
 * highlight.js with every grammar the site highlights (~1 MB) and KaTeX (~270 kB) would otherwise
 * more than double what every edit page downloads. They sit next to editor.js under the same
 * fingerprinted prefix, and hand their library over on `window`.
 */
import type { HLJSApi } from "highlight.js";
import type Katex from "katex";

declare global {
  interface Window {
    quireHighlight?: HLJSApi;
    quireKatex?: typeof Katex;
  }
}

// Read while editor.js runs (a classic script): its own address gives the prefix of the others.
const scriptSrc = typeof document !== "undefined" ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;
const BASE = scriptSrc ? scriptSrc.slice(0, scriptSrc.lastIndexOf("/") + 1) : "";

const loading = new Map<string, Promise<void>>();

function loadScript(name: string): Promise<void> {
  let promise = loading.get(name);
  if (!promise) {
    promise = new Promise<void>((resolve, reject) => {
      const script = document.createElement("script");
      script.src = `${BASE}${name}`;
      script.async = true;
      script.addEventListener("load", () => resolve());
      script.addEventListener("error", () => {
        loading.delete(name);
        script.remove();
        reject(new Error(`${name} could not be loaded`));
      });
      document.head.append(script);
    });
    loading.set(name, promise);
  }
  return promise;
}

/** highlight.js, loaded once. */
export async function loadHighlighter(): Promise<HLJSApi> {
  if (!window.quireHighlight) await loadScript("editor-code.js");
  return window.quireHighlight!;
}

/** KaTeX, loaded once. */
export async function loadKatex(): Promise<typeof Katex> {
  if (!window.quireKatex) await loadScript("editor-math.js");
  return window.quireKatex!;
}
