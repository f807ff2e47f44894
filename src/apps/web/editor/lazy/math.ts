/** The editor's lazily loaded KaTeX: the same library the site's renderer uses for math. */
import katex from "katex";

window.quireKatex = katex;
