/** What a site's access and redirects panels show: its grants and the organization's teams, its live redirects as addresses. */
import type { DialectName, Executor } from "../../../../db/database.js";
import type { SiteRow } from "../../../../db/schema.js";
import { listTeamGrants, listUserGrants } from "../../../../modules/content-permissions/content-permissions.queries.js";
import type { RedirectDestination } from "../../../../modules/sites/redirects.model.js";
import { listSiteRedirectRows } from "../../../../modules/sites/redirects.queries.js";
import { destinationSegments, pagePathsOf } from "../../../../modules/sites/redirects.service.js";
import { type SiteModel, siteSpaceSegments } from "../../../../modules/sites/structure.model.js";
import { listTeams } from "../../../../modules/teams/teams.queries.js";
import type { ShownRedirect, SiteGrants } from "./site-access.model.js";

/** Grants and teams shown at once; more is the API's (paginated) business. */
export const SHOWN_GRANTS = 100;
export const SHOWN_REDIRECTS = 200;

export async function loadSiteGrants(db: Executor, dialect: DialectName, site: SiteRow): Promise<SiteGrants> {
  const [users, teams, orgTeams] = await Promise.all([
    listUserGrants(db, site.id, { limit: SHOWN_GRANTS }),
    listTeamGrants(db, site.id, { limit: SHOWN_GRANTS }),
    listTeams(db, dialect, site.orgId, { limit: SHOWN_GRANTS }),
  ]);
  return {
    users: users.rows.map((u) => ({ id: u.id, email: u.email, displayName: u.displayName, role: u.grantRole })),
    teams: teams.rows.map((t) => ({ id: t.id, title: t.title, role: t.grantRole })),
    orgTeams: orgTeams.rows.map((t) => ({ id: t.id, title: t.title })),
    more: users.next !== undefined || teams.next !== undefined,
  };
}

/** The site's live redirects, newest first, each destination written as the form takes it. */
export async function loadShownRedirects(db: Executor, model: SiteModel): Promise<{ rows: ShownRedirect[]; total: number }> {
  const all = (await listSiteRedirectRows(db, model.site.id, false)).sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id),
  );
  // A space's pages are read once, however many redirects lead into it.
  const pages = new Map<string, Promise<Map<string, string>>>();
  const rows: ShownRedirect[] = [];
  for (const row of all.slice(0, SHOWN_REDIRECTS)) {
    const destination = JSON.parse(row.destination) as RedirectDestination;
    let text: string | undefined;
    if (destination.kind === "site-page") {
      const siteSpace = model.siteSpaces.find((s) => s.id === destination.siteSpaceId && !s.hidden);
      if (siteSpace) {
        if (!pages.has(siteSpace.id)) pages.set(siteSpace.id, pagePathsOf(db, siteSpace.space));
        const path = (await pages.get(siteSpace.id))?.get(destination.pageId);
        if (path !== undefined) text = `/${[...siteSpaceSegments(model, siteSpace), ...path.split("/")].join("/")}`;
      }
    } else {
      const found = await destinationSegments(db, model, destination);
      text = found === undefined ? undefined : "url" in found ? found.url : `/${found.segments.join("/")}`;
    }
    rows.push({ id: row.id, source: row.source, destination: text, permanent: row.permanent === 1 });
  }
  return { rows, total: all.length };
}
