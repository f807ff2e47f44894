import { describe, expect, it } from "vitest";
import {
  DEFAULT_LAYOUT,
  frontmatterFromPageMetadata,
  pageMetadataFromFrontmatter,
  parseFrontmatter,
  serializeFrontmatter,
  splitFrontmatter,
} from "./frontmatter.js";

describe("front matter", () => {
  const yaml = `description: Short summary
icon: book-open
cover: ../.gitbook/assets/cover.png
coverY: 120
coverHeight: 300
layout:
  width: wide
  cover:
    visible: false
    size: full
  title:
    visible: true
  outline:
    visible: false
  metadata:
    visible: false
hidden: true
noIndex: true
noRobotsIndex: false
if: visitor.claims.unsigned.beta === true
vars:
  product: Lumen
metaLinks:
  canonical: https://a.dev/x
  alternates:
    - https://a.dev/fr/x
tags: [beta]
owner: docs-team
`;

  it("reads every known key and keeps unknown ones", () => {
    const warnings: string[] = [];
    const fm = parseFrontmatter(yaml, warnings);
    expect(warnings).toEqual([]);
    expect(fm).toMatchObject({
      description: "Short summary",
      icon: "book-open",
      cover: "../.gitbook/assets/cover.png",
      coverY: 120,
      coverHeight: 300,
      layout: {
        width: "wide",
        cover: { visible: false, size: "full" },
        title: { visible: true },
        outline: { visible: false },
        metadata: { visible: false },
      },
      hidden: true,
      noIndex: true,
      noRobotsIndex: false,
      if: "visitor.claims.unsigned.beta === true",
      vars: { product: "Lumen" },
      metaLinks: { canonical: "https://a.dev/x", alternates: ["https://a.dev/fr/x"] },
      tags: ["beta"],
      extra: { owner: "docs-team" },
    });
    const again = parseFrontmatter(splitFrontmatter(serializeFrontmatter(fm)).yaml!, []);
    expect(again).toEqual(fm);
  });

  it("maps to the API's page fields and back", () => {
    const fm = parseFrontmatter(yaml, []);
    const meta = pageMetadataFromFrontmatter(fm, (path) => ({ kind: "file", file: `id:${path}` }));
    expect(meta).toEqual({
      description: "Short summary",
      icon: "book-open",
      cover: { ref: { kind: "file", file: "id:../.gitbook/assets/cover.png" }, yPos: 120, height: 300 },
      layout: { ...DEFAULT_LAYOUT, width: "wide", cover: false, coverSize: "full", outline: false, metadata: false },
      hidden: true,
      noIndex: true,
      noRobotsIndex: false,
      condition: { expression: "visitor.claims.unsigned.beta === true" },
      variables: { product: "Lumen" },
      metaLinks: { canonical: "https://a.dev/x", alternates: ["https://a.dev/fr/x"] },
    });
    const back = frontmatterFromPageMetadata(meta, (ref) => (ref.kind === "file" ? ref.file.slice(3) : undefined));
    expect(back.layout).toEqual({
      width: "wide",
      cover: { visible: false, size: "full" },
      outline: { visible: false },
      metadata: { visible: false },
    });
    expect(back.cover).toBe("../.gitbook/assets/cover.png");
    expect(back.if).toBe(fm.if);
  });

  it("warns about invalid YAML, non-mappings and wrong types instead of throwing", () => {
    const warnings: string[] = [];
    expect(parseFrontmatter("description: a: b\n  - c", warnings)).toEqual({});
    expect(parseFrontmatter("- a\n- b", warnings)).toEqual({});
    expect(parseFrontmatter("hidden: maybe\nlayout: 3", warnings)).toEqual({ extra: { hidden: "maybe", layout: 3 } });
    expect(warnings).toHaveLength(4);
  });

  it("applies the parts of GitBook's newer layouts that the API holds and names the rest", () => {
    const warnings: string[] = [];
    const yaml =
      "layout:\n  width: wide\n  cover:\n    visible: true\n    size: background\n    mask: none\n  title:\n    visible: false\n  tags:\n    visible: true\n  actions:\n    visible: true\n";
    expect(parseFrontmatter(yaml, warnings)).toEqual({ layout: { width: "wide", cover: { visible: true }, title: { visible: false } } });
    expect(warnings).toEqual([
      'front matter layout: cover.size: "background", cover.mask: "none", tags, actions are not part of GitBook\'s page layout; ignored',
    ]);
  });

  it("only splits a closed --- block at the very top", () => {
    expect(splitFrontmatter("---\na: 1\n---\nbody").yaml).toBe("a: 1\n");
    expect(splitFrontmatter("---\nno closing").yaml).toBeUndefined();
    expect(splitFrontmatter("text\n---\na: 1\n---\n").yaml).toBeUndefined();
  });
});
