/** PDF export of a space or change request: pure (data in, bytes out), no database or HTTP. */
export { renderPdf, type PdfPageInput, type RenderPdfInput } from "./render-pdf.js";
export type { ContentRef, JSONDocument } from "./document-types.js";
export type { ImageRef, LoadImage } from "./images.js";
export type { DescribeRef } from "./links.js";
