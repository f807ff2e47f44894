/** GitBook's JSON document model: types, stable keys, plain text. */
export type * from "./types.js";
export { reconcileKeys, stripKeys, collectKeys, newKey } from "./keys.js";
export { documentToPlainText, type PlainTextSection } from "./plain-text.js";
