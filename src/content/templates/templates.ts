/**
 * Built-in templates: small GitBook-format repositories under templates/<id>/ (see
 * templates/README.md), turned into revision content with the same reader and importer as Git
 * sync. Parameters (`params.contentRefs`) fill `{{contentRefs.<key>.<field>}}` placeholders;
 * `{{#contentRefs.<key>}}…{{/…}}` keeps a part only when the parameter is given, `{{^…}}` only
 * when it is not.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { memoryTree } from "../../git/tree.js";
import type { ContentRef } from "../document/types.js";
import { type ImportedContent, importContent } from "../git-sync/import-content.js";
import { readRepository } from "../gitbook-repo/read.js";
import { emptyContent, type PageNode, type RevisionContent } from "../revision/model.js";
import { blobHash } from "../store/canonical.js";

export interface TemplateInfo {
  id: string;
  title: string;
  description: string;
  contentRefs: Record<string, { kind: string; required: boolean; description?: string }>;
}

export class TemplateError extends Error {}

/** templates/ at the package root, from src/ (tests) and from dist/ (production) alike. */
const TEMPLATES_DIR = fileURLToPath(new URL("../../../templates/", import.meta.url));

export function listTemplates(): TemplateInfo[] {
  return fs
    .readdirSync(TEMPLATES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(TEMPLATES_DIR, entry.name, "template.json")))
    .map((entry) => {
      const meta = JSON.parse(fs.readFileSync(path.join(TEMPLATES_DIR, entry.name, "template.json"), "utf8"));
      return {
        id: entry.name,
        title: meta.title,
        description: meta.description,
        contentRefs: Object.fromEntries(
          Object.entries(meta.contentRefs ?? {}).map(([key, value]) => {
            const spec = value as { kind: string; required?: boolean; description?: string };
            return [key, { kind: spec.kind, required: !!spec.required, ...(spec.description ? { description: spec.description } : {}) }];
          }),
        ),
      };
    })
    .sort((a, b) => a.id.localeCompare(b.id));
}

// Only id-like values are substituted, so a parameter can never inject Markdown or tags.
const SAFE_VALUE = /^[A-Za-z0-9_-]{1,100}$/;

export function renderTemplateText(text: string, params: Record<string, unknown>): string {
  const lookup = (expression: string): unknown =>
    expression
      .split(".")
      .reduce<unknown>((value, key) => (value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined), params);
  const sections = text.replace(/\{\{([#^])([\w.]+)\}\}\n?([\s\S]*?)\{\{\/\2\}\}\n?/g, (_all, kind: string, name: string, body: string) => {
    const present = lookup(name) !== undefined;
    return (kind === "#") === present ? body : "";
  });
  return sections.replace(/\{\{([\w.]+)\}\}/g, (_all, name: string) => {
    const value = lookup(name);
    if (typeof value !== "string" || !SAFE_VALUE.test(value)) {
      throw new TemplateError(`The template needs ${name} to be an id (letters, digits, "-" or "_").`);
    }
    return value;
  });
}

/** Checks the parameters against the template's declaration; throws TemplateError saying what is wrong. */
export function checkTemplateParams(info: TemplateInfo, contentRefs: Record<string, ContentRef>): void {
  for (const [key, ref] of Object.entries(contentRefs)) {
    const declared = info.contentRefs[key];
    if (!declared) {
      const known = Object.keys(info.contentRefs);
      throw new TemplateError(
        `The template "${info.id}" has no parameter "${key}"${known.length ? `; it accepts ${known.join(", ")}` : "; it takes none"}.`,
      );
    }
    if (ref.kind !== declared.kind) throw new TemplateError(`params.contentRefs.${key} must be a reference of kind "${declared.kind}".`);
  }
  for (const [key, declared] of Object.entries(info.contentRefs)) {
    if (declared.required && !contentRefs[key]) throw new TemplateError(`The template "${info.id}" needs params.contentRefs.${key}.`);
  }
}

/** The template's content as fresh pages (new ids, no Git metadata). */
export async function templateContent(id: string, contentRefs: Record<string, ContentRef>, now: string): Promise<ImportedContent> {
  const info = listTemplates().find((t) => t.id === id);
  if (!info)
    throw new TemplateError(
      `No template "${id}"; the templates are: ${listTemplates()
        .map((t) => t.id)
        .join(", ")}.`,
    );
  checkTemplateParams(info, contentRefs);
  const root = path.join(TEMPLATES_DIR, id);
  const files = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join("/");
      if (entry.isDirectory()) walk(full);
      else if (rel !== "template.json") {
        const bytes = fs.readFileSync(full);
        files.set(rel, rel.endsWith(".md") ? Buffer.from(renderTemplateText(bytes.toString("utf8"), { contentRefs })) : bytes);
      }
    }
  };
  walk(root);
  const { entries, reader } = memoryTree(files);
  const repository = await readRepository(entries, reader);
  const imported = await importContent(
    repository,
    emptyContent(),
    { readBlob: async (oid) => (await reader.readBlobs([oid]))[0]!, loadDocumentJson: async () => undefined, blobHash },
    now,
  );
  const strip = (pages: PageNode[]): PageNode[] => pages.map(({ git: _git, ...page }) => ({ ...page, children: strip(page.children) }));
  return {
    ...imported,
    content: {
      ...imported.content,
      pages: strip(imported.content.pages),
      files: imported.content.files.map(({ git: _git, ...file }) => file),
      reusableContents: imported.content.reusableContents.map(({ git: _git, ...rc }) => rc),
    },
  };
}

/** `content` with `added`'s pages, files and reusable contents at the end (existing variables win). */
export function appendContent(content: RevisionContent, added: RevisionContent): RevisionContent {
  return {
    pages: [...content.pages, ...added.pages],
    files: [...content.files, ...added.files],
    reusableContents: [...content.reusableContents, ...added.reusableContents],
    variables: { ...added.variables, ...content.variables },
  };
}
