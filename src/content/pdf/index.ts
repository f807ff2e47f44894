/** PDF export of a space or change request: pure (data in, bytes out), no database or HTTP. */

export type { ContentRef, JSONDocument } from "./document-types.js";
export type { ImageRef, LoadImage } from "./images.js";
export type { DescribeRef } from "./links.js";
export { type PdfPageInput, type RenderPdfInput, renderPdf } from "./render-pdf.js";
