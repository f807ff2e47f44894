/** Hostile single-block Markdown shapes of a given size, for the linearity bench and the parser tests. */

/** Repeats `unit(i)` until the text reaches `size` characters, between `head` and `tail`. */
function fill(size: number, unit: (i: number) => string, head = "", tail = ""): string {
  const parts: string[] = [head];
  let length = head.length + tail.length;
  for (let i = 0; length < size; i++) {
    const piece = unit(i);
    parts.push(piece);
    length += piece.length;
  }
  parts.push(tail);
  return parts.join("");
}

const words = (i: number) => `word${i % 97} and some more text `;

export const SHAPES: Record<string, (size: number) => string> = {
  "paragraph (many lines)": (n) => fill(n, (i) => `${words(i)}line ${i}\n`),
  "one long line": (n) => fill(n, (i) => words(i)),
  "list items (tight)": (n) => fill(n, (i) => `* item ${i} ${words(i)}\n`),
  "ordered list (loose)": (n) => fill(n, (i) => `${i + 1}. item ${i} ${words(i)}\n\n`),
  "nested list": (n) => fill(n, (i) => `${"  ".repeat(i % 4)}* item ${i}\n`),
  table: (n) => fill(n, (i) => `| ${i} | ${words(i)} | x |\n`, "| a | b | c |\n|---|---|---|\n"),
  blockquote: (n) => fill(n, (i) => `> ${words(i)}line ${i}\n`),
  "blockquote paragraphs": (n) => fill(n, (i) => `> para ${i} ${words(i)}\n>\n`),
  "html block": (n) => fill(n, (i) => `<div>${words(i)}${i}</div>\n`, "<div>\n", "</div>\n"),
  "html comment": (n) => fill(n, (i) => `${words(i)}${i}\n\n`, "<!--\n", "-->\n"),
  emphasis: (n) => fill(n, (i) => `*a${i}* **b** _c_ `),
  "unclosed emphasis": (n) => fill(n, (i) => `*a${i} _b `),
  "emphasis closers only": (n) => fill(n, (i) => `a${i}* b_ `),
  "nested emphasis": (n) => fill(n, (i) => `*a${i} **b _c `, "", "x"),
  strikethrough: (n) => fill(n, (i) => `~~a${i}~~ ~b~ `),
  links: (n) => fill(n, (i) => `[link ${i}](page-${i}.md) `),
  "reference links": (n) =>
    fill(
      n,
      (i) => `[link ${i}][r${i % 50}] `,
      "",
      `\n\n${fill(0, () => "")}${Array.from({ length: 50 }, (_, i) => `[r${i}]: https://e.com/${i}`).join("\n")}\n`,
    ),
  "unclosed brackets": (n) => fill(n, (i) => `[a${i} `),
  autolinks: (n) => fill(n, (i) => `<https://example.com/${i}> `),
  "gfm autolinks": (n) => fill(n, (i) => `https://example.com/${i} www.e${i}.com `),
  "inline code": (n) => fill(n, (i) => `\`c${i}\` `),
  "fenced code": (n) => fill(n, (i) => `const x${i} = ${i}; // ${words(i)}\n`, "```js\n", "```\n"),
  "indented code": (n) => fill(n, (i) => `    const x${i} = ${i};\n`),
  "math block": (n) => fill(n, (i) => `x_{${i}} + y\n`, "$$\n", "$$\n"),
  "tabs tag": (n) => fill(n, (i) => `Text ${i} ${words(i)}\n\n`, '{% tabs %}\n{% tab title="A" %}\n', "{% endtab %}\n{% endtabs %}\n"),
  "hint tag, one paragraph": (n) => fill(n, (i) => `${words(i)}${i}\n`, '{% hint style="info" %}\n', "{% endhint %}\n"),
  "many blocks + a definition": (n) => fill(n, (i) => `Para ${i} [x][d] ${words(i)}\n\n`, "", "[d]: https://e.com\n"),
  "headings + paragraphs": (n) => fill(n, (i) => `## H ${i}\n\n${words(i)}\n\n`),
};
