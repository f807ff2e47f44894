/** The editor's lazily loaded highlighter: the same highlight.js, with every grammar, that the site's renderer uses. */
import hljs from "highlight.js";

window.quireHighlight = hljs;
