/**
 * remark-math's plugin, without KaTeX. remark-math takes the `math` syntax from the index of
 * micromark-extension-math, which also exports that package's HTML compiler and, with it, KaTeX:
 * every thread that parses Markdown (the server's and each worker's) loaded KaTeX (~11 MB resident
 * each) for nothing, as Quire renders math with its own renderer (content/html/math.ts). The syntax
 * module is imported by its file, next to the package's entry, which its `exports` map hides.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { mathFromMarkdown, mathToMarkdown, type ToOptions } from "mdast-util-math";
import type { Extension } from "micromark-util-types";
import type { Processor } from "unified";

const entry = createRequire(import.meta.url).resolve("micromark-extension-math");
const { math } = (await import(pathToFileURL(path.join(path.dirname(entry), "lib", "syntax.js")).href)) as {
  math: (options?: ToOptions) => Extension;
};

/** The same as `unified().use(remarkMath, options)`. */
export function remarkMathSyntax(this: Processor, options: ToOptions = {}): undefined {
  const data = this.data();
  (data.micromarkExtensions ??= []).push(math(options));
  (data.fromMarkdownExtensions ??= []).push(mathFromMarkdown());
  (data.toMarkdownExtensions ??= []).push(mathToMarkdown(options));
}
