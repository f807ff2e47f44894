/** What a site's access and redirects panels show (loaded by site-access.steps.ts, shown by site-access.views.ts). */

export interface SiteGrants {
  users: { id: string; email: string; displayName: string; role: string }[];
  teams: { id: string; title: string; role: string }[];
  /** Teams of the organization, to grant one. */
  orgTeams: { id: string; title: string }[];
  more: boolean;
}

export interface ShownRedirect {
  id: string;
  source: string;
  /** The destination as an address on the site or a URL; undefined when it no longer exists. */
  destination: string | undefined;
  permanent: boolean;
}
