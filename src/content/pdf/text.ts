import type { FaceSegment, FontFace, Fonts } from "./fonts.js";
import type { OpenedImage } from "./images.js";
import { COLOR } from "./theme.js";

/**
 * Inline layout: styled runs of text (and small inline images) broken into lines that fit a width.
 *
 * pdfkit can wrap text itself, but not a paragraph that mixes fonts, links and inline code while we
 * also decide where pages break, so lines are built here: runs become "atoms" (stretches that may
 * not be broken: a word, possibly made of several styled pieces), atoms are packed greedily into
 * lines, and a word longer than a whole line is broken between characters.
 */

export interface TextStyle {
  face: FontFace;
  size: number;
  color: string;
  strike?: boolean;
  underline?: boolean;
  /** Box behind the text: inline code, keyboard keys, highlights. */
  background?: string;
  /** Outline around the background box (keyboard keys, buttons). */
  boxed?: boolean;
  /** Baseline shift in points, positive upwards (superscript). */
  rise?: number;
}

/** A hyperlink: an external URL or a named destination inside the PDF. */
export type LinkTarget = { url: string } | { dest: string };

export type InlineRun =
  | { kind: "text"; text: string; style: TextStyle; link?: LinkTarget }
  | { kind: "image"; image: OpenedImage; width: number; height: number; style: TextStyle; link?: LinkTarget }
  | { kind: "break" };

interface TextPiece {
  kind: "text";
  text: string;
  face: FontFace;
  style: TextStyle;
  link?: LinkTarget;
  width: number;
  /** Set when no bundled face has these glyphs: `text` is then "□" per character and this the real text. */
  actual?: string;
  /** Whitespace: advances the pen but draws nothing. */
  blank: boolean;
}

interface ImagePiece {
  kind: "image";
  image: OpenedImage;
  width: number;
  height: number;
  style: TextStyle;
  link?: LinkTarget;
}

type Piece = TextPiece | ImagePiece;

interface Atom {
  pieces: Piece[];
  width: number;
  /** Collapsible space after the atom: drawn between atoms, dropped at the end of a line. */
  space?: TextPiece;
  /** Preserved whitespace (code): dropped when it falls on a line break. */
  blank?: boolean;
  hardBreak?: boolean;
}

export interface PositionedPiece {
  piece: Piece;
  x: number;
}

export interface Line {
  pieces: PositionedPiece[];
  width: number;
  height: number;
  /** Distance from the top of the line box to the baseline. */
  baseline: number;
}

export interface LayoutOptions {
  width: number;
  /** Line height as a multiple of the font size. */
  leading: number;
  /** Metrics of an empty line. */
  base: TextStyle;
  /** Keep every space and tab (code). */
  preserve?: boolean;
  align?: "start" | "center" | "end";
}

/** Spaces a line may break at (not the no-break ones: U+00A0, U+2007, U+202F). */
const SPACES = /([ \t\u1680\u2000-\u2006\u2008-\u200A\u205F\u3000]+)/u;
// Ideographic scripts have no spaces: a line may break before and after each of their characters.
const IDEOGRAPH = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3001-\u303F\uFF00-\uFFEF])/u;
/** Cheap pre-check: only text with characters from U+2E80 up can contain ideographs. */
const MAYBE_IDEOGRAPH = /[\u2E80-\uFFEF\u{20000}-\u{3FFFF}]/u;
// C0/C1 controls other than tab and newline would be drawn as boxes (or break the PDF string).
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

export class TextLayout {
  constructor(private readonly fonts: Fonts) {}

  lines(runs: readonly InlineRun[], options: LayoutOptions): Line[] {
    const atoms = this.atoms(runs, options.preserve === true);
    return this.pack(atoms, options);
  }

  /** Width of a single-style string (no wrapping). */
  measure(text: string, style: TextStyle): number {
    let width = 0;
    for (const segment of this.fonts.segments(style.face, text)) width += this.fonts.width(segment.face, segment.text, style.size);
    return width;
  }

  /** `text` shortened with an ellipsis so it fits `maxWidth`. */
  truncate(text: string, style: TextStyle, maxWidth: number): string {
    if (this.measure(text, style) <= maxWidth) return text;
    const chars = Array.from(text);
    let low = 0;
    let high = chars.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (this.measure(`${chars.slice(0, mid).join("").trimEnd()}…`, style) <= maxWidth) low = mid;
      else high = mid - 1;
    }
    return `${chars.slice(0, low).join("").trimEnd()}…`;
  }

  private atoms(runs: readonly InlineRun[], preserve: boolean): Atom[] {
    const atoms: Atom[] = [];
    let current: Atom | undefined;
    const close = () => {
      if (current) atoms.push(current);
      current = undefined;
    };
    const append = (piece: Piece) => {
      current ??= { pieces: [], width: 0 };
      current.pieces.push(piece);
      current.width += piece.width;
    };
    for (const run of runs) {
      if (run.kind === "break") {
        close();
        atoms.push({ pieces: [], width: 0, hardBreak: true });
        continue;
      }
      if (run.kind === "image") {
        append({ kind: "image", image: run.image, width: run.width, height: run.height, style: run.style, link: run.link });
        continue;
      }
      const text = run.text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
      const paragraphs = text.split("\n");
      paragraphs.forEach((part, index) => {
        if (index > 0) {
          close();
          atoms.push({ pieces: [], width: 0, hardBreak: true });
        }
        const source = preserve ? part.replace(/\t/g, "    ") : part;
        // split() with a capturing group alternates words (even indexes) and separators (odd ones).
        for (const [position, token] of source.split(SPACES).entries()) {
          if (token.length === 0) continue;
          const spaces = position % 2 === 1 ? token : undefined;
          if (spaces === undefined && MAYBE_IDEOGRAPH.test(token)) {
            // Each ideograph is an atom of its own; text around them joins the neighbouring atoms.
            for (const [i, part] of token.split(IDEOGRAPH).entries()) {
              if (part.length === 0) continue;
              const ideograph = i % 2 === 1;
              if (ideograph) close();
              for (const piece of this.pieces(part, run.style, run.link)) append(piece);
              if (ideograph) close();
            }
            continue;
          }
          const word = spaces === undefined ? token : undefined;
          if (spaces !== undefined) {
            if (preserve) {
              close();
              const piece = this.blank(spaces, run.style, run.link);
              atoms.push({ pieces: [piece], width: piece.width, blank: true });
              continue;
            }
            const target = current ?? atoms.at(-1);
            if (target && !target.hardBreak && !target.blank && !target.space) target.space = this.blank(" ", run.style, run.link);
            close();
          } else if (word !== undefined) {
            for (const piece of this.pieces(word, run.style, run.link)) append(piece);
          }
        }
      });
    }
    close();
    return atoms;
  }

  private pieces(text: string, style: TextStyle, link: LinkTarget | undefined): TextPiece[] {
    return this.fonts.segments(style.face, text).map((segment: FaceSegment) => ({
      kind: "text",
      text: segment.text,
      face: segment.face,
      style,
      link,
      width: this.fonts.width(segment.face, segment.text, style.size),
      ...(segment.actual !== undefined ? { actual: segment.actual } : {}),
      blank: false,
    }));
  }

  private blank(text: string, style: TextStyle, link: LinkTarget | undefined): TextPiece {
    return { kind: "text", text, face: style.face, style, link, width: this.fonts.width(style.face, text, style.size), blank: true };
  }

  private pack(atoms: Atom[], options: LayoutOptions): Line[] {
    const { width } = options;
    const rows: Atom[][] = [[]];
    let used = 0;
    const newRow = () => {
      rows.push([]);
      used = 0;
    };
    for (const atom of atoms) {
      if (atom.hardBreak) {
        newRow();
        continue;
      }
      let row = rows[rows.length - 1] as Atom[];
      const gap = row.at(-1)?.space?.width ?? 0;
      if (row.length > 0 && used + gap + atom.width > width + 0.01) {
        if (atom.blank) continue;
        newRow();
        row = rows[rows.length - 1] as Atom[];
      }
      if (atom.width <= width + 0.01) {
        used += (row.length > 0 ? gap : 0) + atom.width;
        row.push(atom);
        continue;
      }
      // Longer than a whole line (a URL, a hash, a long code token): break between characters.
      const chunks = this.split(atom, width);
      chunks.forEach((chunk, index) => {
        if (index > 0) newRow();
        (rows[rows.length - 1] as Atom[]).push(chunk);
        used = chunk.width;
      });
    }
    return rows.map((row) => this.line(row, options));
  }

  private split(atom: Atom, width: number): Atom[] {
    const chunks: Atom[] = [];
    let chunk: Atom = { pieces: [], width: 0 };
    const push = (piece: Piece) => {
      if (chunk.pieces.length > 0 && chunk.width + piece.width > width + 0.01) {
        chunks.push(chunk);
        chunk = { pieces: [], width: 0 };
      }
      const last = chunk.pieces.at(-1);
      // Consecutive characters of one piece are merged back so each is drawn with one text call.
      if (
        piece.kind === "text" &&
        last?.kind === "text" &&
        last.face === piece.face &&
        last.style === piece.style &&
        last.link === piece.link &&
        (last.actual === undefined) === (piece.actual === undefined)
      ) {
        last.text += piece.text;
        last.width += piece.width;
        if (last.actual !== undefined) last.actual += piece.actual ?? "";
      } else {
        chunk.pieces.push(piece.kind === "text" ? { ...piece } : piece);
      }
      chunk.width += piece.width;
    };
    for (const piece of atom.pieces) {
      if (piece.kind === "image") {
        push(piece);
        continue;
      }
      // A missing-glyph piece has one "□" per character of `actual`: split both in step.
      const actual = piece.actual === undefined ? undefined : Array.from(piece.actual);
      Array.from(piece.text).forEach((char, i) => {
        const sub: TextPiece = { ...piece, text: char, width: this.fonts.width(piece.face, char, piece.style.size) };
        if (actual) sub.actual = actual[i] ?? "";
        push(sub);
      });
    }
    chunk.space = atom.space;
    chunks.push(chunk);
    return chunks;
  }

  private line(row: Atom[], options: LayoutOptions): Line {
    const pieces: PositionedPiece[] = [];
    let x = 0;
    row.forEach((atom, index) => {
      const previous = row[index - 1];
      if (previous?.space) {
        pieces.push({ piece: previous.space, x });
        x += previous.space.width;
      }
      for (const piece of atom.pieces) {
        pieces.push({ piece, x });
        x += piece.width;
      }
    });
    let above = 0;
    let below = 0;
    const measure = (style: TextStyle) => {
      const ascent = this.fonts.ascent(style.face) * style.size;
      const descent = this.fonts.descent(style.face) * style.size;
      const halfLeading = Math.max(0, style.size * options.leading - ascent - descent) / 2;
      const rise = style.rise ?? 0;
      above = Math.max(above, ascent + halfLeading + rise);
      below = Math.max(below, descent + halfLeading - rise);
    };
    measure(options.base);
    for (const { piece } of pieces) {
      if (piece.kind === "text") measure(piece.style);
      else above = Math.max(above, piece.height + 2);
    }
    const shift = options.align === "center" ? (options.width - x) / 2 : options.align === "end" ? options.width - x : 0;
    if (shift > 0) for (const positioned of pieces) positioned.x += shift;
    return { pieces, width: x, height: above + below, baseline: above };
  }
}

/** Draws a line whose box starts at (x, top). */
export function paintLine(doc: PDFKit.PDFDocument, fonts: Fonts, line: Line, x: number, top: number): void {
  const baselineY = top + line.baseline;
  const groups = <K>(key: (piece: Piece) => K | undefined, each: (value: K, from: number, to: number, first: Piece) => void) => {
    let start = 0;
    while (start < line.pieces.length) {
      const first = line.pieces[start] as PositionedPiece;
      const value = key(first.piece);
      let end = start + 1;
      while (end < line.pieces.length && value !== undefined && key((line.pieces[end] as PositionedPiece).piece) === value) end++;
      if (value !== undefined) {
        const last = line.pieces[end - 1] as PositionedPiece;
        each(value, x + first.x, x + last.x + last.piece.width, first.piece);
      }
      start = end;
    }
  };

  // Boxes behind inline code and highlights, merged over one styled run so spaces inside are covered.
  groups(
    (piece) => (piece.kind === "text" && piece.style.background ? piece.style : undefined),
    (style, from, to) => {
      const ascent = fonts.ascent(style.face) * style.size;
      const descent = fonts.descent(style.face) * style.size;
      const boxTop = baselineY - (style.rise ?? 0) - ascent - 0.5;
      const height = ascent + descent + 1;
      doc.roundedRect(from - 1.5, boxTop, to - from + 3, height, 2).fill(style.background as string);
      if (style.boxed)
        doc
          .roundedRect(from - 1.5, boxTop, to - from + 3, height, 2)
          .lineWidth(0.5)
          .stroke(COLOR.rule);
    },
  );

  // Consecutive pieces in one style are drawn with one text call, spaces included, so that
  // copying or searching the PDF finds words separated by real spaces.
  let run: { piece: TextPiece; x: number; text: string; actual: string } | undefined;
  const flush = () => {
    if (!run || run.text.trim().length === 0) {
      run = undefined;
      return;
    }
    const { piece, text, actual } = run;
    const { style } = piece;
    const missing = piece.actual !== undefined;
    doc.font(piece.face).fontSize(style.size).fillColor(style.color);
    if (missing) doc.markContent("Span", { actual });
    doc.text(text, run.x, baselineY - (style.rise ?? 0), { lineBreak: false, baseline: "alphabetic" });
    if (missing) doc.endMarkedContent();
    run = undefined;
  };
  for (const { piece, x: px } of line.pieces) {
    if (piece.kind === "image") {
      flush();
      doc.image(piece.image, x + px, baselineY - piece.height, { width: piece.width, height: piece.height });
      continue;
    }
    // Missing characters join only each other: their run is wrapped in one /ActualText span.
    const missing = piece.actual !== undefined;
    const joins =
      run &&
      (run.piece.actual !== undefined
        ? missing && run.piece.face === piece.face && run.piece.style === piece.style
        : !missing && (piece.blank || (run.piece.face === piece.face && run.piece.style === piece.style)));
    if (run && joins) {
      run.text += piece.text;
      run.actual += piece.actual ?? "";
      continue;
    }
    flush();
    run = { piece, x: x + px, text: piece.text, actual: piece.actual ?? "" };
  }
  flush();

  groups(
    (piece) => (piece.kind === "text" && (piece.style.strike || piece.style.underline) ? piece.style : undefined),
    (style, from, to) => {
      const y = baselineY - (style.rise ?? 0);
      doc.lineWidth(Math.max(0.5, style.size * 0.06));
      if (style.strike)
        doc
          .moveTo(from, y - style.size * 0.3)
          .lineTo(to, y - style.size * 0.3)
          .stroke(style.color);
      if (style.underline)
        doc
          .moveTo(from, y + style.size * 0.12)
          .lineTo(to, y + style.size * 0.12)
          .stroke(style.color);
    },
  );

  groups(
    (piece) => piece.link,
    (link, from, to) => {
      if ("url" in link) doc.link(from, top, to - from, line.height, link.url);
      else doc.goTo(from, top, to - from, line.height, link.dest);
    },
  );
}
