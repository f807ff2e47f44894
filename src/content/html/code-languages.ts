/**
 * Which highlight.js grammar a code block's `syntax` names: shared by the server's renderer
 * (code.ts) and the block editor (src/apps/web/editor/highlight.ts), so a block is highlighted
 * the same way while it is written and once it is published. No language auto-detection.
 */

/** Names writers use for a grammar highlight.js knows under another name. */
export const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  jsx: "javascript",
  tsx: "typescript",
};

/** The grammar for `syntax`, when `known` (highlight.js's getLanguage) has it. */
export function grammarOf(syntax: string | undefined, known: (name: string) => unknown): string | undefined {
  if (!syntax) return undefined;
  const name = syntax.trim().toLowerCase();
  if (!name) return undefined;
  const candidate = LANGUAGE_ALIASES[name] ?? name;
  return known(candidate) ? candidate : undefined;
}
