/**
 * Table blocks: the grid view as a real <table> (in a scrolling wrapper for narrow screens), the
 * cards view as a grid of cards. Text cells hold blocks, kept in the table's fragments under the
 * id the record's value names.
 */
import type { ContentRef } from "../document/types.js";
import { asContentRef, children, type Fragment, fragmentsOf, isNode, type Node } from "./nodes.js";
import type { Ctx, HtmlRenderer } from "./render.js";
import { html, raw, type SafeHtml } from "./safe-html.js";

interface Definition {
  id?: string;
  title?: string;
  type?: string;
  textAlignment?: string;
  verticalAlignment?: string;
  max?: number;
  options?: Array<{ value?: unknown; label?: unknown; color?: unknown }>;
}

interface TableRecord {
  orderIndex?: unknown;
  values?: Record<string, unknown>;
}

const EMPTY = raw("");

export function renderTable(renderer: HtmlRenderer, node: Node, ctx: Ctx): SafeHtml {
  const data = node.data ?? {};
  const view = isNode(data.view) ? (data.view as Record<string, unknown>) : { type: "grid" };
  const definitions = isNode(data.definition) ? (data.definition as Record<string, Definition>) : {};
  const columnIds = (Array.isArray(view.columns) ? view.columns : Object.keys(definitions)).filter(
    (id): id is string => typeof id === "string" && isNode(definitions[id]),
  );
  const byFragment = new Map<string, Fragment>();
  for (const fragment of fragmentsOf(node)) if (typeof fragment.fragment === "string") byFragment.set(fragment.fragment, fragment);
  const records = sortedRecords(data.records);
  const cell = (id: string, record: TableRecord) => renderCell(renderer, definitions[id]!, record.values?.[id], byFragment, ctx);
  const full = data.fullWidth === true ? " q-full-width" : "";

  if (view.type === "cards") {
    const target = typeof view.targetDefinition === "string" ? view.targetDefinition : undefined;
    const cover = typeof view.coverDefinition === "string" ? view.coverDefinition : undefined;
    const coverDark = typeof view.coverDefinitionDark === "string" ? view.coverDefinitionDark : undefined;
    const hideTitles = view.hideColumnTitle === true;
    const size = view.cardSize === "large" ? "large" : "medium";
    const cards = records.map(([, record]) => {
      const link = target ? renderer.link(asContentRef(record.values?.[target])) : undefined;
      const coverHtml = cover ? coverImage(renderer, record.values?.[cover], coverDark ? record.values?.[coverDark] : undefined) : EMPTY;
      const fields = columnIds
        .filter((id) => id !== target && id !== cover && id !== coverDark)
        .map((id) => {
          const content = cell(id, record);
          if (!content.value) return EMPTY;
          const title = definitions[id]!.title;
          return html`<div class="q-card-field">${!hideTitles && title ? html`<div class="q-card-field-title">${title}</div>` : EMPTY}${content}</div>`;
        });
      // The target link covers the card (CSS), below any link the fields hold.
      return html`<div class="q-card${link ? " q-card-linked" : ""}">${coverHtml}<div class="q-card-body">${fields}</div>${link ? html`<a class="q-card-target" href="${link.href}" aria-label="${link.title ?? "Open"}"></a>` : EMPTY}</div>`;
    });
    return html`<div class="q-cards q-cards-${size}${full}">${cards}</div>`;
  }

  const head =
    view.hideHeader === true
      ? EMPTY
      : html`<thead><tr>${columnIds.map((id) => html`<th scope="col"${alignment(definitions[id]!)}>${definitions[id]!.title ?? ""}</th>`)}</tr></thead>`;
  const widths = isNode(view.columnWidths) ? (view.columnWidths as Record<string, unknown>) : {};
  const cols = columnIds.some((id) => validWidth(widths[id]))
    ? html`<colgroup>${columnIds.map((id) => (validWidth(widths[id]) ? html`<col style="width:${Math.round(widths[id] as number)}px">` : raw("<col>")))}</colgroup>`
    : EMPTY;
  const rows = records.map(
    ([, record]) => html`<tr>${columnIds.map((id) => html`<td${alignment(definitions[id]!)}>${cell(id, record)}</td>`)}</tr>`,
  );
  return html`<div class="q-table-wrap${full}"><table class="q-table">${cols}${head}<tbody>${rows}</tbody></table></div>`;
}

function renderCell(renderer: HtmlRenderer, definition: Definition, value: unknown, byFragment: Map<string, Fragment>, ctx: Ctx): SafeHtml {
  switch (definition.type) {
    case "text":
    case undefined: {
      const fragment = typeof value === "string" ? byFragment.get(value) : undefined;
      if (fragment) return renderer.blocks(children(fragment), ctx);
      return typeof value === "string" && !definition.type ? html`${value}` : EMPTY;
    }
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? html`${String(value)}` : EMPTY;
    case "checkbox":
      return html`<input type="checkbox" disabled${value === true ? raw(" checked") : EMPTY} aria-label="${value === true ? "Yes" : "No"}">`;
    case "rating": {
      const max = Math.min(10, Math.max(1, Math.trunc(typeof definition.max === "number" ? definition.max : 5)));
      const stars = Math.min(max, Math.max(0, Math.round(typeof value === "number" ? value : 0)));
      return html`<span class="q-rating" role="img" aria-label="${stars} out of ${max}">${"★".repeat(stars)}<span class="q-rating-off">${"☆".repeat(max - stars)}</span></span>`;
    }
    case "select": {
      const selected = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
      const options = Array.isArray(definition.options) ? definition.options.filter(isNode) : [];
      return html`${selected.map((v) => {
        const option = options.find((o) => o.value === v);
        const label = typeof option?.label === "string" ? option.label : v;
        return html`<span class="q-chip">${label}</span>`;
      })}`;
    }
    case "users":
    case "files":
    case "content-ref": {
      const refs: Array<ContentRef | undefined> =
        definition.type === "content-ref"
          ? [asContentRef(value)]
          : (Array.isArray(value) ? value : []).map((id) =>
              typeof id !== "string" ? undefined : definition.type === "users" ? { kind: "user", user: id } : { kind: "file", file: id },
            );
      const parts: SafeHtml[] = [];
      for (const reference of refs) {
        if (!reference) continue;
        const target = renderer.link(reference);
        const label = target?.title ?? (reference.kind === "url" ? reference.url : reference.kind === "user" ? "Someone" : "Unavailable");
        if (parts.length > 0) parts.push(raw(", "));
        parts.push(target ? html`<a href="${target.href}">${label}</a>` : html`<span>${label}</span>`);
      }
      return html`${parts}`;
    }
    case "image": {
      const reference = asContentRef(value) ?? (isNode(value) ? asContentRef((value as { ref?: unknown }).ref) : undefined);
      const alt = isNode(value) && typeof (value as { alt?: unknown }).alt === "string" ? (value as { alt: string }).alt : "";
      const source = renderer.imageSource(reference);
      return source ? html`<img class="q-cell-image" src="${source.url}" alt="${alt}" loading="lazy" decoding="async">` : EMPTY;
    }
    default:
      return typeof value === "string" || typeof value === "number" ? html`${String(value)}` : EMPTY;
  }
}

function coverImage(renderer: HtmlRenderer, value: unknown, darkValue: unknown): SafeHtml {
  const refOf = (v: unknown) => asContentRef(v) ?? (isNode(v) ? asContentRef((v as { ref?: unknown }).ref) : undefined);
  const source = renderer.imageSource(refOf(value));
  if (!source) return EMPTY;
  const dark = darkValue === undefined ? undefined : renderer.imageSource(refOf(darkValue));
  const img = html`<img src="${source.url}" alt="" loading="lazy" decoding="async">`;
  return html`<div class="q-card-cover">${dark ? renderer.picture(dark.url, img) : img}</div>`;
}

function alignment(definition: Definition): SafeHtml {
  const align = definition.type === "text" ? definition.textAlignment : definition.type === "number" ? "right" : undefined;
  const classes: string[] = [];
  if (align === "center" || align === "right") classes.push(`q-align-${align}`);
  const vertical = definition.type === "text" ? definition.verticalAlignment : undefined;
  if (vertical === "middle" || vertical === "bottom") classes.push(`q-valign-${vertical}`);
  return classes.length > 0 ? raw(` class="${classes.join(" ")}"`) : EMPTY;
}

function validWidth(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value < 10_000;
}

function sortedRecords(value: unknown): Array<[string, TableRecord]> {
  if (!isNode(value)) return [];
  const entries = Object.entries(value as Record<string, unknown>).filter((entry): entry is [string, TableRecord] => isNode(entry[1]));
  // orderIndex values are fractional-indexing keys: plain code-unit order, not locale order.
  return entries.sort(([, a], [, b]) => {
    const oa = typeof a.orderIndex === "string" ? a.orderIndex : "";
    const ob = typeof b.orderIndex === "string" ? b.orderIndex : "";
    return oa < ob ? -1 : oa > ob ? 1 : 0;
  });
}
