/**
 * Page geometry, type sizes and colours of the PDF export, in one place so the look can be tuned
 * without reading the layout code. Units are PDF points (1/72 inch).
 */

/** A4 portrait: the paper size most of our users print on. */
export const PAGE = {
  width: 595.28,
  height: 841.89,
  marginTop: 60,
  marginBottom: 60,
  marginX: 56,
  /** Baseline of the footer line, measured from the bottom edge. */
  footerBaseline: 32,
} as const;

export const CONTENT_WIDTH = PAGE.width - 2 * PAGE.marginX;
export const CONTENT_TOP = PAGE.marginTop;
export const CONTENT_BOTTOM = PAGE.height - PAGE.marginBottom;

/** Indentation stops growing once the text column would get narrower than this (deeply nested lists). */
export const MIN_TEXT_WIDTH = 170;

export const SIZE = {
  body: 10.5,
  small: 9,
  table: 9,
  code: 9,
  footer: 8,
  pageTitle: 22,
  pageDescription: 12,
  h1: 17,
  h2: 14,
  h3: 12,
  title: 30,
  subtitle: 15,
} as const;

/** Line height as a multiple of the font size. */
export const LEADING = 1.45;
export const CODE_LEADING = 1.35;

export const COLOR = {
  text: "#1f2328",
  muted: "#59636e",
  faint: "#8c959f",
  link: "#0b5cad",
  rule: "#d0d7de",
  codeBackground: "#f3f4f6",
  codeTitleBackground: "#e4e7eb",
  inlineCodeBackground: "#eceef1",
  tableHeaderBackground: "#eef1f4",
  quoteBar: "#c4cbd3",
  placeholder: "#8c959f",
  accent: "#2f6fdd",
} as const;

export type HintStyle = "info" | "success" | "warning" | "danger";

export const HINT: Record<HintStyle, { bar: string; background: string; label: string }> = {
  info: { bar: "#2f6fdd", background: "#edf3fd", label: "Info" },
  success: { bar: "#1a7f37", background: "#ebf7ee", label: "Success" },
  warning: { bar: "#c27c0e", background: "#fdf6e7", label: "Warning" },
  danger: { bar: "#cf222e", background: "#fcecee", label: "Danger" },
};

/** Text and background colours of the `color` mark (GitBook's palette, darkened for print). */
export const MARK_COLOR: Record<string, string> = {
  green: "#1a7f37",
  blue: "#0b5cad",
  red: "#cf222e",
  orange: "#bc4c00",
  yellow: "#9a6700",
  purple: "#8250df",
  $primary: "#2f6fdd",
  $info: "#2f6fdd",
  $success: "#1a7f37",
  $warning: "#c27c0e",
  $danger: "#cf222e",
};

export const MARK_BACKGROUND: Record<string, string> = {
  green: "#dafbe1",
  blue: "#ddf4ff",
  red: "#ffebe9",
  orange: "#fff1e5",
  yellow: "#fff8c5",
  purple: "#fbefff",
  $primary: "#ddf4ff",
  $info: "#ddf4ff",
  $success: "#dafbe1",
  $warning: "#fff8c5",
  $danger: "#ffebe9",
};
