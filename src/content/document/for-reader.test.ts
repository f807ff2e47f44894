import { describe, expect, it } from "vitest";
import { block, doc, p } from "../../../test/helpers/render-documents.js";
import { documentForReader } from "./for-reader.js";

describe("documentForReader", () => {
  const document = doc(
    p("always"),
    block("if", { expression: "yes" }, [p("shown"), block("if", { expression: "no" }, [p("nested hidden")])]),
    block("if", { expression: "no" }, [p("hidden")]),
    block("tabs", {}, [block("tabs-item", { title: "A" }, [block("if", { expression: "no" }, [p("hidden in a tab")]), p("tab text")])]),
    block("if", {}, [p("no expression: hidden")]),
  );

  it("unwraps blocks whose condition holds and drops the others, at any depth", () => {
    const seen: string[] = [];
    const out = documentForReader(document, (e) => {
      seen.push(e);
      return e === "yes";
    });
    const text = JSON.stringify(out);
    for (const shown of ["always", "shown", "tab text"]) expect(text).toContain(shown);
    for (const hidden of ["nested hidden", '"hidden"', "hidden in a tab", "no expression"]) expect(text).not.toContain(hidden);
    expect(text).not.toContain('"type":"if"');
    expect(seen.sort()).toEqual(["no", "no", "no", "yes"]);
    // The stored document is not changed.
    expect(JSON.stringify(document)).toContain("nested hidden");
  });
});
