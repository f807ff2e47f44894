// wink-nlp has no `exports` map, so ES modules import its utilities by file name; its types are
// declared under the name without the extension.
declare module "wink-nlp/utilities/bm25-vectorizer.js" {
  export { default } from "wink-nlp/utilities/bm25-vectorizer";
}
