/**
 * `npx tsx bench/markdown-linearity.bench.ts [maxKB] [shape...]`: times parseMarkdownPage +
 * serializeMarkdownPage (the import/API round trip) on hostile single-block shapes at sizes
 * N, 2N, 4N ... up to maxKB (default 1024), and prints the CPU time per size and the growth ratio
 * t(2N)/t(N). Linear work gives ratios near 2; a shape whose time passes 60 s stops growing.
 */
import { parseMarkdownPage } from "../src/content/markdown/parse.js";
import { serializeMarkdownPage } from "../src/content/markdown/serialize.js";

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

/** CPU milliseconds of this thread's process (less disturbed than wall time on a shared machine). */
function cpu(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function time(markdown: string): number {
  const start = cpu();
  const parsed = parseMarkdownPage(markdown);
  serializeMarkdownPage({ title: parsed.title, frontmatter: parsed.frontmatter, document: parsed.document });
  return cpu() - start;
}

const maxKB = Number(process.argv[2] ?? 1024);
const only = process.argv.slice(3);
const sizes: number[] = [];
for (let kb = 128; kb <= maxKB; kb *= 2) sizes.push(kb * 1024);

time(SHAPES["headings + paragraphs"]!(64 * 1024)); // warm-up
console.log(`shape                          ${sizes.map((s) => `${s / 1024} KB`.padStart(10)).join("")}   t(2N)/t(N)`);
for (const [name, make] of Object.entries(SHAPES)) {
  if (only.length && !only.some((o) => name.includes(o))) continue;
  const totals: number[] = [];
  for (const size of sizes) {
    if (totals.length && totals[totals.length - 1]! > 60_000) break;
    try {
      totals.push(time(make(size)));
    } catch (error) {
      console.log(`${name}: ${size / 1024} KB throws ${(error as Error).message}`);
      break;
    }
  }
  const ratios = totals.slice(1).map((t, i) => (t / totals[i]!).toFixed(2));
  console.log(
    `${name.padEnd(30)} ${totals.map((t) => `${t.toFixed(0)} ms`.padStart(10)).join("")}${"".padStart(10 * (sizes.length - totals.length))}   ${ratios.join(" ")}`,
  );
}
