/**
 * A page's settings form: its values from the page, and the update_page fields a posted form
 * changes (only those that differ), or the first problem with it, worded for the form. The
 * content operation checks again when it applies them.
 */
import { slugify } from "../../../../content/gitbook-repo/text.js";
import type { PageNode } from "../../../../content/revision/model.js";
import type { ContentChangeValue } from "../../../../modules/change-request-content/change-request-content.schemas.js";
import { emojiText } from "../../common.views.js";

/** The settings form's values (as typed when a save is refused). */
export interface PageSettingsForm {
  title: string;
  slug: string;
  emoji: string;
  description: string;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
}

export interface SettingsProblem {
  /** The form field it concerns. */
  field?: string;
  message: string;
}

const MAX_TITLE = 256;
const MAX_SLUG = 100;
const MAX_DESCRIPTION = 1000;

/** A page's settings as its form shows them (an emoji stored as code points shown as the character). */
export function settingsFormOf(page: PageNode): PageSettingsForm {
  return {
    title: page.title,
    slug: page.slug,
    emoji: emojiText(page.emoji).trim(),
    description: page.description ?? "",
    hidden: page.hidden === true,
    noIndex: page.noIndex === true,
    noRobotsIndex: page.noRobotsIndex === true,
  };
}

/** The form as posted: checkboxes are present or not, line breaks are the browser's. */
export function settingsFormFromBody(body: {
  title: string;
  slug: string;
  emoji?: string | undefined;
  description?: string | undefined;
  hidden?: "true" | undefined;
  noIndex?: "true" | undefined;
  noRobotsIndex?: "true" | undefined;
}): PageSettingsForm {
  return {
    title: body.title,
    slug: body.slug,
    emoji: body.emoji ?? "",
    description: (body.description ?? "").replace(/\r\n?/g, "\n"),
    hidden: body.hidden === "true",
    noIndex: body.noIndex === "true",
    noRobotsIndex: body.noRobotsIndex === "true",
  };
}

/** One emoji (with its modifiers and joiners), as a person types or pastes it. */
function isEmoji(text: string): boolean {
  const graphemes = [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)];
  return graphemes.length === 1 && /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u.test(text);
}

type Checked = { change: Partial<ContentChangeValue> } | { problem: SettingsProblem };

function checkSlug(
  form: PageSettingsForm,
  current: PageSettingsForm,
  page: PageNode,
  siblings: readonly PageNode[],
  title: string,
): Checked {
  const typed = form.slug.trim();
  if (typed === current.slug) return { change: {} };
  // Left empty: made from the title, as for a new page.
  const slug = typed || slugify(title);
  if (slug.length > MAX_SLUG) return { problem: { field: "slug", message: `A slug has at most ${MAX_SLUG} characters.` } };
  if (slug !== slugify(slug)) {
    const message = `A slug is lowercase letters, digits and hyphens, without spaces or slashes: “${slugify(slug)}” would do.`;
    return { problem: { field: "slug", message } };
  }
  const other = siblings.find((p) => p.slug === slug && p.id !== page.id);
  if (other) {
    const message = `The slug “${slug}” is already used by “${other.title || "Untitled page"}” at the same level: pick another.`;
    return { problem: { field: "slug", message } };
  }
  return { change: slug !== page.slug ? { slug } : {} };
}

export function checkSettings(form: PageSettingsForm, current: PageSettingsForm, page: PageNode, siblings: readonly PageNode[]): Checked {
  const change: Partial<ContentChangeValue> = {};
  const title = form.title.trim();
  if (!title) return { problem: { field: "title", message: "A page needs a title." } };
  if (title.length > MAX_TITLE)
    return { problem: { field: "title", message: `A title has at most ${MAX_TITLE} characters (this one has ${title.length}).` } };
  if (title !== current.title) change.title = title;

  const slug = checkSlug(form, current, page, siblings, title);
  if ("problem" in slug) return slug;
  Object.assign(change, slug.change);

  const emoji = form.emoji.trim();
  if (emoji !== current.emoji) {
    if (emoji && !isEmoji(emoji)) {
      const message = `“${emoji}” is not one emoji: type or paste a single emoji, or leave it empty for none.`;
      return { problem: { field: "emoji", message } };
    }
    change.emoji = emoji || null;
  }

  const description = form.description.trim();
  if (description.length > MAX_DESCRIPTION) {
    const message = `A description has at most ${MAX_DESCRIPTION} characters (this one has ${description.length}).`;
    return { problem: { field: "description", message } };
  }
  if (description !== current.description.trim()) change.description = description || null;

  for (const flag of ["hidden", "noIndex", "noRobotsIndex"] as const) if (form[flag] !== current[flag]) change[flag] = form[flag];
  return { change };
}
