/**
 * How the app names a page wherever pages are listed (pickers, lists, search results): its title,
 * and, when another listed page has the same title, the trail that tells them apart
 * ("Kubernetes — Cloud / Kubernetes"). Pure.
 */

/** A listed page: its title and the titles of its ancestors, root first. */
export interface LabelledPage {
  id: string;
  title: string;
  ancestors: readonly { title: string }[];
  /** Pages of several spaces listed together: the space's title starts the trail. */
  space?: string | undefined;
}

const untitled = (title: string) => title.trim() || "Untitled page";
const sameTitle = (title: string) => untitled(title).toLocaleLowerCase();

/** The trail of a page: its space (when given), its ancestors and itself, joined by " / ". */
export function pageTrail(page: LabelledPage): string {
  return [...(page.space ? [page.space] : []), ...page.ancestors.map((a) => untitled(a.title)), untitled(page.title)].join(" / ");
}

/**
 * Each page's label by id: the title alone when no other listed page shares it (ignoring case),
 * else "Title — trail". A trail that is itself the title (two top-level pages of one space named
 * alike) keeps the title: nothing shorter tells them apart.
 */
export function pageLabels(pages: readonly LabelledPage[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const page of pages) counts.set(sameTitle(page.title), (counts.get(sameTitle(page.title)) ?? 0) + 1);
  const labels = new Map<string, string>();
  for (const page of pages) {
    const title = untitled(page.title);
    const trail = pageTrail(page);
    labels.set(page.id, (counts.get(sameTitle(title)) ?? 0) > 1 && trail !== title ? `${title} — ${trail}` : title);
  }
  return labels;
}
