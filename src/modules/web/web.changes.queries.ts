import type { Executor } from "../../db/database.js";
import type { CommentReplyRow } from "../../db/schema.js";
import { defaultSectionId, defaultSiteSpaceId, hasSections, sectionsInOrder, visibleSiteSpacesOf } from "../sites/structure.model.js";
import { loadSiteModel } from "../sites/structure.queries.js";

/** The replies to these comments, oldest first (a conversation), in one query; at most `limit` in all. */
export async function repliesOfComments(db: Executor, commentIds: readonly string[], limit: number): Promise<CommentReplyRow[]> {
  if (commentIds.length === 0) return [];
  return db
    .selectFrom("commentReplies")
    .selectAll()
    .where("commentId", "in", [...commentIds])
    .orderBy("postedAt")
    .orderBy("id")
    .limit(limit)
    .execute();
}

/**
 * Where a space is published: for each published site of its organization that shows it, the site
 * and the URL segments of that site space from the site's root, as the published site builds them
 * (none for the home section and its default space). A page's address there is the site's address,
 * these segments, then the page's path.
 */
export async function publishedPlacesOfSpace(
  db: Executor,
  space: { id: string; orgId: string },
): Promise<{ basename: string; title: string; segments: string[] }[]> {
  const sites = await db
    .selectFrom("sites")
    .selectAll("sites")
    .where("sites.orgId", "=", space.orgId)
    .where("sites.published", "=", 1)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("siteSpaces")
          .select("siteSpaces.id")
          .whereRef("siteSpaces.siteId", "=", "sites.id")
          .where("siteSpaces.spaceId", "=", space.id),
      ),
    )
    .orderBy("sites.title")
    .orderBy("sites.id")
    .limit(10)
    .execute();
  const places: { basename: string; title: string; segments: string[] }[] = [];
  for (const site of sites) {
    const model = await loadSiteModel(db, site);
    const sections = hasSections(model) ? sectionsInOrder(model) : [null];
    const home = defaultSectionId(model);
    for (const section of sections) {
      const sectionId = section?.id ?? null;
      const defaultVariant = defaultSiteSpaceId(model, sectionId);
      for (const siteSpace of visibleSiteSpacesOf(model, sectionId)) {
        if (siteSpace.spaceId !== space.id) continue;
        const segments = [
          ...(section && section.id !== home ? [section.path] : []),
          ...(siteSpace.id !== defaultVariant ? [siteSpace.path] : []),
        ];
        places.push({ basename: site.basename, title: site.title, segments });
      }
    }
  }
  return places;
}
