/**
 * Code blocks highlighted while they are written, as the published site highlights them: the same
 * highlight.js grammars and language names (content/html/code-languages.ts) and the same
 * `hljs-*` classes, so content.css colours both. Highlighting is a set of inline decorations over
 * the code lines' text: the text and its DOM nodes are never rewritten, so the caret stays where
 * the writer left it. Only the code blocks a transaction touched are highlighted again.
 */
import { Extension, getChangedRanges } from "@tiptap/core";
import type { Node as PMNode } from "@tiptap/pm/model";
import { type EditorState, Plugin, PluginKey, type Transaction } from "@tiptap/pm/state";
import { Decoration, DecorationSet } from "@tiptap/pm/view";
import type { HLJSApi } from "highlight.js";
import { grammarOf } from "../../../content/html/code-languages.js";
import { loadHighlighter } from "./lazy.js";

/** Beyond this many characters a block is left plain (as the site does). */
const MAX_HIGHLIGHT = 100_000;

export interface Token {
  from: number;
  to: number;
  className: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'", apos: "'" };

/**
 * The classed ranges of highlight.js's HTML, as offsets into the text it highlighted. Its output
 * is escaped text and `<span class="…">` tags, nested; each span becomes one token.
 */
export function tokensOfHtml(markup: string): Token[] {
  const tokens: Token[] = [];
  const open: Array<{ from: number; className: string }> = [];
  const part = /<span class="([^"]*)">|<\/span>|&([#\w]+);|[^<&]+/g;
  let offset = 0;
  let match: RegExpExecArray | null;
  while ((match = part.exec(markup))) {
    if (match[1] !== undefined) open.push({ from: offset, className: match[1] });
    else if (match[0] === "</span>") {
      const start = open.pop();
      if (start && offset > start.from) tokens.push({ from: start.from, to: offset, className: start.className });
    } else if (match[2] !== undefined) offset += (ENTITIES[match[2]] ?? match[0]).length;
    else offset += match[0].length;
  }
  return tokens;
}

/** The decorations of one code block at `pos` (none when its language is unknown). */
function blockDecorations(hljs: HLJSApi, node: PMNode, pos: number): Decoration[] {
  const language = grammarOf(String((node.attrs.data as { syntax?: unknown } | null)?.syntax ?? ""), (name) => hljs.getLanguage(name));
  if (!language) return [];
  // The text of the lines joined by "\n", and the document position of each of its characters.
  let source = "";
  const positions: number[] = [];
  node.forEach((line, lineOffset, index) => {
    if (index > 0) {
      source += "\n";
      positions.push(-1);
    }
    line.forEach((child, childOffset) => {
      if (!child.isText) return;
      const start = pos + 1 + lineOffset + 1 + childOffset;
      source += child.text!;
      for (let i = 0; i < child.text!.length; i++) positions.push(start + i);
    });
  });
  if (!source.trim() || source.length > MAX_HIGHLIGHT) return [];
  let markup: string;
  try {
    markup = hljs.highlight(source, { language, ignoreIllegals: true }).value;
  } catch {
    return [];
  }
  const out: Decoration[] = [];
  for (const token of tokensOfHtml(markup)) {
    // One decoration per run of characters that are next to each other in the document (a line).
    let runFrom = -1;
    let runTo = -1;
    const flush = () => {
      if (runFrom >= 0) out.push(Decoration.inline(runFrom, runTo, { class: token.className }));
      runFrom = -1;
    };
    for (let i = token.from; i < token.to && i < positions.length; i++) {
      const at = positions[i]!;
      if (at < 0) flush();
      else if (runFrom >= 0 && at === runTo) runTo = at + 1;
      else {
        flush();
        runFrom = at;
        runTo = at + 1;
      }
    }
    flush();
  }
  return out;
}

interface HighlightState {
  set: DecorationSet;
  /** A code block is (or was) in the document: the highlighter is wanted. */
  wanted: boolean;
}

const highlightKey = new PluginKey<HighlightState>("codeHighlight");
let highlighter: HLJSApi | undefined;

function isCode(node: PMNode): boolean {
  return node.type.name === "codeBlock";
}

function everyBlock(doc: PMNode): { decorations: Decoration[]; found: boolean } {
  const decorations: Decoration[] = [];
  let found = false;
  doc.descendants((node, pos) => {
    if (isCode(node)) {
      found = true;
      if (highlighter) decorations.push(...blockDecorations(highlighter, node, pos));
      return false;
    }
    return !node.isTextblock;
  });
  return { decorations, found };
}

function applyTransaction(tr: Transaction, value: HighlightState, state: EditorState): HighlightState {
  if (tr.getMeta(highlightKey) === "loaded") {
    const { decorations, found } = everyBlock(state.doc);
    return { set: DecorationSet.create(state.doc, decorations), wanted: found };
  }
  if (!tr.docChanged) return value;
  let set = value.set.map(tr.mapping, tr.doc);
  let wanted = value.wanted;
  const touched = new Map<number, PMNode>();
  for (const { newRange } of getChangedRanges(tr)) {
    const from = Math.max(0, newRange.from);
    const to = Math.min(tr.doc.content.size, Math.max(newRange.to, from));
    tr.doc.nodesBetween(from, to, (node, pos) => {
      if (isCode(node)) {
        touched.set(pos, node);
        return false;
      }
      return !node.isTextblock;
    });
  }
  for (const [pos, node] of touched) {
    wanted = true;
    if (!highlighter) continue;
    set = set.remove(set.find(pos, pos + node.nodeSize));
    set = set.add(tr.doc, blockDecorations(highlighter, node, pos));
  }
  return { set, wanted };
}

export function codeHighlightPlugin(): Plugin<HighlightState> {
  return new Plugin<HighlightState>({
    key: highlightKey,
    state: {
      init: (_config, state) => {
        const { decorations, found } = everyBlock(state.doc);
        return { set: DecorationSet.create(state.doc, decorations), wanted: found };
      },
      apply: (tr, value, _old, state) => applyTransaction(tr, value, state),
    },
    props: {
      decorations: (state) => highlightKey.getState(state)?.set,
    },
    view: (view) => {
      let requested = false;
      const request = () => {
        if (requested || highlighter || !highlightKey.getState(view.state)?.wanted) return;
        requested = true;
        loadHighlighter()
          .then((hljs) => {
            highlighter = hljs;
            if (!view.isDestroyed) view.dispatch(view.state.tr.setMeta(highlightKey, "loaded").setMeta("addToHistory", false));
          })
          .catch(() => {
            requested = false;
          });
      };
      request();
      return { update: request };
    },
  });
}

export const CodeHighlight = Extension.create({
  name: "codeHighlight",
  addProseMirrorPlugins: () => [codeHighlightPlugin()],
});
