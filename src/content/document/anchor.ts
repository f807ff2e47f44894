/**
 * Heading anchors as GitBook computes them, so that `page#anchor` links written in GitBook (and
 * bookmarks, and links from other sites) land on the same heading after a migration.
 *
 * GitBook's rule, read off the anchors its Git Sync wrote into public repositories (HackTricks:
 * `/etc/sudoers, /etc/sudoers.d` -> `etc-sudoers-etc-sudoers-d`,
 * `/var/run/sudo/ts/<Username>` -> `var-run-sudo-ts-less-than-username-greater-than`,
 * `Farcaster User(s)` -> `farcaster-user-s`, `log_key` -> `log-key`): lower case; `&`, `|`, `<`
 * and `>` read as words; every other run of characters that are not letters or digits (of any
 * script) becomes one hyphen; no hyphen at either end.
 */

const SYMBOL_WORDS: Record<string, string> = { "&": " and ", "|": " or ", "<": " less than ", ">": " greater than " };

/** GitBook's anchor for a heading's text ("" when the text has no letter or digit). */
export function gitbookAnchor(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[&|<>]/g, (c) => SYMBOL_WORDS[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * Hands out a page's anchors in document order: a heading's own pinned id (`data.id`) when it has
 * one, else GitBook's anchor of its text; a second heading of the same anchor gets `-1`, `-2`…
 */
export class AnchorAllocator {
  private readonly taken = new Set<string>();

  next(pinned: string | undefined, text: string): string {
    const base = (pinned?.trim() || gitbookAnchor(text)).replace(/\s+/g, "-") || "section";
    let id = base;
    for (let n = 1; this.taken.has(id); n++) id = `${base}-${n}`;
    this.taken.add(id);
    return id;
  }
}

interface LooseNode {
  object?: unknown;
  type?: unknown;
  data?: unknown;
  meta?: unknown;
  nodes?: unknown;
  fragments?: unknown;
  leaves?: unknown;
}

function headingText(node: LooseNode): string {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (!value || typeof value !== "object") return;
    const n = value as LooseNode;
    if (n.object === "text" && Array.isArray(n.leaves)) {
      for (const leaf of n.leaves)
        if (leaf && typeof (leaf as { text?: unknown }).text === "string") out.push((leaf as { text: string }).text);
      return;
    }
    if (Array.isArray(n.nodes)) for (const child of n.nodes) walk(child);
  };
  walk(node);
  return out.join("").replace(/\s+/g, " ").trim();
}

const HEADINGS = new Set(["heading-1", "heading-2", "heading-3"]);

/**
 * A copy of the document whose headings carry `meta.id`, the anchor the published page gives
 * them (GitBook's API: "Unique ID to be used in an URL for the block"). Headings are numbered in
 * reading order, fragments (tabs, expandables) included, as the published page renders them.
 */
export function withHeadingAnchors<T>(document: T): T {
  const anchors = new AnchorAllocator();
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (!value || typeof value !== "object") return value;
    const node = value as LooseNode;
    if (node.object === "text") return value;
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    if (node.object === "block" && typeof node.type === "string" && HEADINGS.has(node.type)) {
      const data = node.data && typeof node.data === "object" ? (node.data as { id?: unknown }) : {};
      out.meta = { id: anchors.next(typeof data.id === "string" ? data.id : undefined, headingText(node)) };
      return out;
    }
    if (Array.isArray(node.nodes)) out.nodes = node.nodes.map(visit);
    if (Array.isArray(node.fragments)) out.fragments = node.fragments.map(visit);
    return out;
  };
  return visit(document) as T;
}

/** A page's headings in reading order with the anchor the published page gives each (a link picker's list). */
export function headingAnchors(document: unknown): Array<{ anchor: string; title: string; level: number }> {
  const out: Array<{ anchor: string; title: string; level: number }> = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!value || typeof value !== "object") return;
    const node = value as LooseNode;
    if (node.object === "text") return;
    if (node.object === "block" && typeof node.type === "string" && HEADINGS.has(node.type)) {
      const id = (node.meta as { id?: unknown } | undefined)?.id;
      if (typeof id === "string") out.push({ anchor: id, title: headingText(node), level: Number(node.type.slice(-1)) });
      return;
    }
    visit(node.nodes);
    visit(node.fragments);
  };
  visit(withHeadingAnchors(document));
  return out;
}
