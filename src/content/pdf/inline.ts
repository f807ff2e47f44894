import type { RenderEnv } from "./context.js";
import { imageRef } from "./context.js";
import {
  childNodes,
  type DocumentElement,
  type DocumentMark,
  type DocumentNode,
  dataRef,
  dataString,
  emojiText,
  fragmentsOf,
  isElement,
  isText,
  plainText,
} from "./document-types.js";
import { type FontFace, faceFor } from "./fonts.js";
import type { InlineRun, LinkTarget, TextStyle } from "./text.js";
import { COLOR, MARK_BACKGROUND, MARK_COLOR } from "./theme.js";

/**
 * Inline content (text leaves with their marks, links, emoji, mentions, math, inline images,
 * annotations) as styled runs, ready for line layout.
 */

/** Styled runs of inline nodes (text leaves, links, emoji, math…). */
export function inlineRuns(env: RenderEnv, nodes: readonly DocumentNode[], style: TextStyle, link?: LinkTarget, depth = 0): InlineRun[] {
  const out: InlineRun[] = [];
  for (const node of nodes) {
    if (isText(node)) {
      for (const leaf of Array.isArray(node.leaves) ? node.leaves : []) {
        if (typeof leaf?.text !== "string" || leaf.text.length === 0) continue;
        out.push({ kind: "text", text: leaf.text, style: applyMarks(style, leaf.marks), link });
      }
      continue;
    }
    if (!isElement(node)) continue;
    if (depth > 40) {
      out.push({ kind: "text", text: plainText(node), style, link });
      continue;
    }
    out.push(...inline(env, node, style, link, depth));
  }
  return out;
}

function inline(env: RenderEnv, node: DocumentElement, style: TextStyle, link: LinkTarget | undefined, depth: number): InlineRun[] {
  const { links, pageId } = env;
  switch (node.type) {
    case "link": {
      const ref = dataRef(node);
      const described = ref ? links.describe(ref, pageId) : undefined;
      // A fresh object per link node: consecutive links must stay separate annotations.
      const target = described?.link ? { ...described.link } : link;
      const linkStyle = target ? { ...style, color: COLOR.link } : style;
      const children = childNodes(node);
      if (children.length === 0 || plainText(node).length === 0) {
        return [{ kind: "text", text: described?.text ?? "", style: linkStyle, link: target }];
      }
      return inlineRuns(env, children, linkStyle, target, depth + 1);
    }
    case "emoji":
      return [{ kind: "text", text: emojiText(dataString(node, "code") ?? ""), style, link }];
    case "icon":
      // Font Awesome icon names have no printable form; the surrounding text carries the meaning.
      return [];
    case "expression":
      return [{ kind: "text", text: dataString(node, "expression") ?? "", style: codeStyle(style), link }];
    case "inline-math":
      return [{ kind: "text", text: dataString(node, "formula") ?? "", style: { ...style, face: faceFor(true, false, true) }, link }];
    case "inline-image":
      return [inlineImage(env, node, style, link)];
    case "annotation": {
      const runs = inlineRuns(env, childNodes(node), style, link, depth + 1);
      const fragments = fragmentsOf(node);
      if (fragments.length > 0 && env.notes.length < 1000) {
        env.notes.push(fragments);
        const number = String(env.notes.length);
        runs.push({
          kind: "text",
          text: number,
          style: { ...style, face: "sans", size: style.size * 0.7, rise: style.size * 0.35, color: COLOR.link },
        });
      }
      return runs;
    }
    case "mention": {
      const ref = dataRef(node);
      if (!ref) return [];
      const described = links.describe(ref, pageId);
      const text = ref.kind === "user" ? `@${described.text}` : described.text;
      return [
        {
          kind: "text",
          text,
          style: described.link ? { ...style, color: COLOR.link } : style,
          link: described.link ? { ...described.link } : link,
        },
      ];
    }
    case "button": {
      const ref = dataRef(node);
      const target = ref ? links.target(ref, pageId) : undefined;
      return [
        {
          kind: "text",
          text: dataString(node, "label") ?? "",
          style: { ...style, face: boldOf(style.face), color: COLOR.link, background: "#eef3fb", boxed: true },
          link: target ? { ...target } : link,
        },
      ];
    }
    default: {
      const children = childNodes(node);
      if (children.length > 0) return inlineRuns(env, children, style, link, depth + 1);
      const text = plainText(node);
      return text ? [{ kind: "text", text, style, link }] : [];
    }
  }
}

function inlineImage(env: RenderEnv, node: DocumentElement, style: TextStyle, link: LinkTarget | undefined): InlineRun {
  const ref = imageRef(dataRef(node));
  const result = ref ? env.images.get(ref) : undefined;
  if (!result?.ok) {
    const label = dataString(node, "alt") || dataString(node, "caption") || "image";
    return { kind: "text", text: `[${label}]`, style: { ...style, color: COLOR.placeholder }, link };
  }
  // "line" images are icons sized like the text; others keep their size, within bounds.
  const maxHeight = dataString(node, "size") === "line" ? style.size * 1.1 : 160;
  let height = Math.min(result.height * 0.75, maxHeight);
  let width = (height * result.width) / result.height;
  if (width > 300) {
    width = 300;
    height = (width * result.height) / result.width;
  }
  return { kind: "image", image: result.image, width, height, style, link };
}

function parseFace(face: FontFace): { mono: boolean; bold: boolean; italic: boolean } {
  return { mono: face.startsWith("mono"), bold: face.includes("Bold"), italic: face.includes("Italic") };
}

function boldOf(face: FontFace): FontFace {
  const { mono, italic } = parseFace(face);
  return faceFor(mono, true, italic);
}

function codeStyle(style: TextStyle): TextStyle {
  const { bold, italic } = parseFace(style.face);
  return {
    ...style,
    face: faceFor(true, bold, italic),
    size: style.size * 0.9,
    background: style.background ?? COLOR.inlineCodeBackground,
  };
}

/** The style of a text leaf: its marks applied over the surrounding style. */
function applyMarks(style: TextStyle, marks: readonly DocumentMark[] | undefined): TextStyle {
  if (!Array.isArray(marks) || marks.length === 0) return style;
  let { mono, bold, italic } = parseFace(style.face);
  const next: TextStyle = { ...style };
  for (const mark of marks) {
    switch (mark?.type) {
      case "bold":
        bold = true;
        break;
      case "italic":
        italic = true;
        break;
      case "code":
        mono = true;
        next.size = style.size * 0.9;
        next.background ??= COLOR.inlineCodeBackground;
        break;
      case "keyboard":
        mono = true;
        next.size = style.size * 0.88;
        next.background = "#f6f8fa";
        next.boxed = true;
        break;
      case "strikethrough":
        next.strike = true;
        break;
      case "color": {
        const text = mark.data?.text;
        const background = mark.data?.background;
        if (text && MARK_COLOR[text]) next.color = MARK_COLOR[text];
        if (background && MARK_BACKGROUND[background]) next.background = MARK_BACKGROUND[background];
        break;
      }
      case "superscript":
        next.rise = style.size * 0.33;
        next.size = style.size * 0.7;
        break;
      case "subscript":
        next.rise = -style.size * 0.12;
        next.size = style.size * 0.7;
        break;
    }
  }
  next.face = faceFor(mono, bold, italic);
  return next;
}
