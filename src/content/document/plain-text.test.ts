import { describe, expect, it } from "vitest";
import { parseMarkdownPage } from "../markdown/parse.js";
import { documentToPlainText } from "./plain-text.js";

describe("documentToPlainText", () => {
  it("splits text into sections at headings, with keys and levels", () => {
    const { document } = parseMarkdownPage(
      '# Title\n\nIntro with a [link](x.md) and `code`.\n\n## Install\n\n{% hint style="info" %}\nHint body\n{% endhint %}\n\n```sh\nnpm i x\n```\n\n### Options\n\n| Flag | Meaning |\n|---|---|\n| -v | verbose |\n\n#### Deep\n\n{% tabs %}\n{% tab title="Mac" %}\nbrew\n{% endtab %}\n{% endtabs %}\n\n{% if visitor.x %}\nShown\n{% endif %}\n',
    );
    const sections = documentToPlainText(document);
    expect(sections.map((s) => [s.heading?.text, s.heading?.level, s.text])).toEqual([
      [undefined, undefined, "Intro with a link and code."],
      ["Install", 1, "Hint body\nnpm i x"],
      ["Options", 2, "Flag Meaning\n-v\nverbose"],
      ["Deep", 3, "Mac\nbrew\nShown"],
    ]);
    expect(sections[1]!.heading!.key).toBe(document.nodes[1]!.key);
  });

  it("includes footnote bodies, image alt text and expandable content", () => {
    const { document } = parseMarkdownPage(
      "Word[^1]\n\n[^1]: Note body\n\n![Diagram of flow](d.png)\n\n<details>\n\n<summary>More</summary>\n\nHidden body\n\n</details>\n",
    );
    expect(documentToPlainText(document)).toEqual([{ text: "Word Note body\nDiagram of flow\nMore\nHidden body" }]);
  });

  it("returns no sections for an empty document", () => {
    expect(documentToPlainText(parseMarkdownPage("").document)).toEqual([]);
  });
});
