import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import * as fontkit from "fontkit";

/**
 * Fonts of the PDF export: DejaVu Sans and DejaVu Sans Mono from the `dejavu-fonts-ttf` package, so
 * the output never depends on fonts installed on the host. DejaVu covers Latin (with its extensions),
 * Greek, Cyrillic, Armenian, Georgian, Hebrew, many symbols and some emoji; characters it lacks
 * (CJK…) are drawn as white squares (□), with the real text attached for copy and search.
 */

declare global {
  // pdfkit also takes an already parsed fontkit font (its font factory checks for `layout`);
  // @types/pdfkit only lists paths and buffers.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace PDFKit.Mixins {
    interface PDFFont {
      registerFont(name: string, src: fontkit.Font): this;
    }
  }
}

export type FontFace = "sans" | "sansBold" | "sansItalic" | "sansBoldItalic" | "mono" | "monoBold" | "monoItalic" | "monoBoldItalic";

const FILES: Record<FontFace, string> = {
  sans: "DejaVuSans.ttf",
  sansBold: "DejaVuSans-Bold.ttf",
  sansItalic: "DejaVuSans-Oblique.ttf",
  sansBoldItalic: "DejaVuSans-BoldOblique.ttf",
  mono: "DejaVuSansMono.ttf",
  monoBold: "DejaVuSansMono-Bold.ttf",
  monoItalic: "DejaVuSansMono-Oblique.ttf",
  monoBoldItalic: "DejaVuSansMono-BoldOblique.ttf",
};

export const FONT_FACES = Object.keys(FILES) as FontFace[];

/**
 * Where to look when a face lacks a glyph: the sans faces cover more than the mono ones, and the
 * regular sans more than its bold and oblique variants.
 */
const FALLBACKS: Record<FontFace, FontFace[]> = {
  sans: ["sans"],
  sansBold: ["sansBold", "sans"],
  sansItalic: ["sansItalic", "sans"],
  sansBoldItalic: ["sansBoldItalic", "sansBold", "sans"],
  mono: ["mono", "sans"],
  monoBold: ["monoBold", "sansBold", "sans"],
  monoItalic: ["monoItalic", "sansItalic", "sans"],
  monoBoldItalic: ["monoBoldItalic", "sansBoldItalic", "sans"],
};

export function faceFor(mono: boolean, bold: boolean, italic: boolean): FontFace {
  const base = mono ? "mono" : "sans";
  if (bold && italic) return `${base}BoldItalic`;
  if (bold) return `${base}Bold`;
  if (italic) return `${base}Italic`;
  return base;
}

interface LoadedFace {
  font: fontkit.Font;
}

let loading: Promise<Record<FontFace, LoadedFace>> | undefined;

/** Reads and parses the font files once per process; every render shares them (they are read-only). */
function loadFaces(): Promise<Record<FontFace, LoadedFace>> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const dir = path.join(path.dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf");
    const entries = await Promise.all(
      FONT_FACES.map(async (face) => {
        const bytes = await readFile(path.join(dir, FILES[face]));
        const parsed = fontkit.create(bytes);
        if (!("layout" in parsed)) throw new Error(`${FILES[face]} is a font collection, expected a single font`);
        keepCharactersOfGlyphs(parsed);
        return [face, { font: parsed }] as const;
      }),
    );
    return Object.fromEntries(entries) as Record<FontFace, LoadedFace>;
  })();
  // A failed read must not poison later renders (e.g. a transient EMFILE).
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/**
 * fontkit keeps one glyph object per glyph id, with the characters of the call that created it,
 * and pdfkit maps glyphs back to text (copy, search) from those characters. Subsetting a composite
 * glyph creates its parts without characters (Cyrillic "р" is drawn from Latin "p"); since the
 * parsed fonts are shared by every render of the thread, every later PDF would lose those letters'
 * text. A glyph created without characters takes those of its first use as text.
 */
function keepCharactersOfGlyphs(font: fontkit.Font): void {
  const getGlyph = font.getGlyph.bind(font);
  font.getGlyph = (id, codePoints = []) => {
    const glyph = getGlyph(id, codePoints);
    if (glyph && glyph.codePoints.length === 0 && codePoints.length > 0) glyph.codePoints = codePoints;
    return glyph;
  };
}

/**
 * A stretch of text drawn with one face. When no face has its glyphs, `text` is one "□" per
 * character and `actual` the characters themselves. (Not the font's own missing-glyph box: pdfkit
 * writes that glyph's width unscaled, so viewers would draw the following text too far right.)
 */
export interface FaceSegment {
  face: FontFace;
  text: string;
  actual?: string;
}

const MISSING = "□";

/**
 * Font metrics and measurement for one render. Widths are cached per face and string: the same
 * words recur constantly and fontkit's layout is the expensive step of line breaking.
 */
export class Fonts {
  private readonly widthCache = new Map<FontFace, Map<string, number>>();
  private cachedWidths = 0;
  /** fontkit computes these from its tables on every access; line layout asks for them constantly. */
  private readonly metrics: Record<FontFace, { ascent: number; descent: number; unitsPerEm: number }>;
  /** Which face draws a code point outside ASCII, per requested face (null: none has it). */
  private readonly coverage = new Map<FontFace, Map<number, FontFace | null>>();

  private constructor(private readonly faces: Record<FontFace, LoadedFace>) {
    this.metrics = Object.fromEntries(
      FONT_FACES.map((face) => {
        const { font } = faces[face];
        return [face, { ascent: font.ascent / font.unitsPerEm, descent: -font.descent / font.unitsPerEm, unitsPerEm: font.unitsPerEm }];
      }),
    ) as Record<FontFace, { ascent: number; descent: number; unitsPerEm: number }>;
  }

  static async load(): Promise<Fonts> {
    return new Fonts(await loadFaces());
  }

  /**
   * Registers every face under its name, so `doc.font("monoBold")` works. The parsed fonts are
   * shared with pdfkit (each document still builds its own subset): parsing them again for every
   * render cost about a tenth of the render time.
   */
  register(doc: PDFKit.PDFDocument): void {
    for (const face of FONT_FACES) doc.registerFont(face, this.faces[face].font);
  }

  /** Ascender height at 1pt. */
  ascent(face: FontFace): number {
    return this.metrics[face].ascent;
  }

  /** Descender depth at 1pt (positive). */
  descent(face: FontFace): number {
    return this.metrics[face].descent;
  }

  width(face: FontFace, text: string, size: number): number {
    if (text.length === 0) return 0;
    let cache = this.widthCache.get(face);
    if (!cache) {
      cache = new Map();
      this.widthCache.set(face, cache);
    }
    let unit = cache.get(text);
    if (unit === undefined) {
      unit = this.faces[face].font.layout(text).advanceWidth / this.metrics[face].unitsPerEm;
      // Bound the cache: a 10,000-row table of unique numbers would otherwise keep every one.
      if (this.cachedWidths > 200_000) {
        this.widthCache.clear();
        this.cachedWidths = 0;
        cache = new Map();
        this.widthCache.set(face, cache);
      }
      cache.set(text, unit);
      this.cachedWidths++;
    }
    return unit * size;
  }

  /** Splits `text` into runs of the first face (of `face`'s fallbacks) that has each character. */
  segments(face: FontFace, text: string): FaceSegment[] {
    // Every face has printable ASCII: the common case needs no per-character lookup.
    if (PRINTABLE_ASCII.test(text)) return [{ face, text }];
    const out: FaceSegment[] = [];
    let current: FaceSegment | undefined;
    for (const char of text) {
      const cp = char.codePointAt(0) ?? 0;
      const chosen = this.faceFor(face, cp);
      // Invisible formatting characters (variation selectors, joiners…) are dropped rather than drawn as boxes.
      if (chosen === null && isDefaultIgnorable(cp)) continue;
      const missing = chosen === null;
      const segmentFace = chosen ?? this.faceFor(face, MISSING.codePointAt(0) as number) ?? "sans";
      if (current && current.face === segmentFace && (current.actual !== undefined) === missing) {
        current.text += missing ? MISSING : char;
        if (missing) current.actual += char;
      } else {
        current = missing ? { face: segmentFace, text: MISSING, actual: char } : { face: segmentFace, text: char };
        out.push(current);
      }
    }
    return out;
  }

  private faceFor(face: FontFace, cp: number): FontFace | null {
    if (cp >= 0x20 && cp < 0x7f) return face;
    let cache = this.coverage.get(face);
    if (!cache) {
      cache = new Map();
      this.coverage.set(face, cache);
    }
    let chosen = cache.get(cp);
    if (chosen === undefined) {
      chosen = FALLBACKS[face].find((candidate) => this.faces[candidate].font.hasGlyphForCodePoint(cp)) ?? null;
      cache.set(cp, chosen);
    }
    return chosen;
  }
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function isDefaultIgnorable(cp: number): boolean {
  return (
    cp === 0xad ||
    cp === 0x34f ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    (cp >= 0xe0000 && cp <= 0xe0fff)
  );
}
