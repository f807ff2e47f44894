/** GitBook's JSON document model: types, stable keys, plain text. */

export { collectKeys, newKey, reconcileKeys, seedKeys, stripKeys } from "./keys.js";
export { documentToPlainText, type PlainTextSection } from "./plain-text.js";
export type * from "./types.js";
