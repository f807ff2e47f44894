/** A site's "Who has access" and "Redirects" panels: forms where the member may change them (the API's rules), a note otherwise. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { ROLES } from "../../../../permissions/roles.js";
import { emptyNote } from "../../common.views.js";
import type { ShownRedirect, SiteGrants } from "./site-access.model.js";

const ROLE_LABELS: Record<string, string> = {
  admin: "Admin: also who has access, visitor authentication, deletion",
  create: "Create",
  review: "Review",
  edit: "Edit: settings, structure, customization, redirects",
  comment: "Comment",
  read: "Read: sees the site",
};

function roleSelect(name: string, label: string, current: string | null, removable: boolean): SafeHtml {
  return html`<select name="${name}" aria-label="${label}">${removable ? html`<option value="">No access (remove)</option>` : ""}${ROLES.map(
    (role) => html`<option value="${role}"${role === current ? html` selected` : ""}>${ROLE_LABELS[role] ?? role}</option>`,
  )}</select>`;
}

export function accessPanel(view: {
  /** Undefined when the member may not list who has access (a guest). */
  grants: SiteGrants | undefined;
  /** The forms' base address; undefined when the member may not change who has access. */
  action: string | undefined;
  saved: boolean;
  csrf: string;
}): SafeHtml {
  const { grants, action, csrf } = view;
  if (!grants) {
    return html`<section class="card" id="access"><h2 style="margin-top:0">Who has access</h2>
        <p class="muted small">Guests cannot see who has access to a site.</p></section>`;
  }
  const token = html`<input type="hidden" name="_csrf" value="${csrf}">`;
  const userRow = (u: SiteGrants["users"][number]) =>
    action
      ? html`<li><form class="inline" method="post" action="${action}/users">${token}<input type="hidden" name="userId" value="${u.id}">
          <span>${u.displayName} <span class="muted small">${u.email}</span></span>
          ${roleSelect("role", `Level of ${u.displayName}`, u.role, true)} <button type="submit">Save</button></form></li>`
      : html`<li>${u.displayName} <span class="muted small">${u.email}</span> <span class="badge">${u.role}</span></li>`;
  const teamRow = (t: SiteGrants["teams"][number]) =>
    action
      ? html`<li><form class="inline" method="post" action="${action}/teams">${token}<input type="hidden" name="teamId" value="${t.id}">
          <span>${t.title} <span class="muted small">team</span></span>
          ${roleSelect("role", `Level of team ${t.title}`, t.role, true)} <button type="submit">Save</button></form></li>`
      : html`<li>${t.title} <span class="muted small">team</span> <span class="badge">${t.role}</span></li>`;
  const forms = action
    ? html`<h3>Give a member access</h3>
        <form class="stack" method="post" action="${action}/users">${token}
          <label>Member's email address <input type="email" name="email" required maxlength="320" autocomplete="off"></label>
          <label>Level ${roleSelect("role", "Level", "read", false)}</label>
          <div><button class="primary" type="submit">Give access</button></div></form>
        ${
          grants.orgTeams.length > 0
            ? html`<h3>Give a team access</h3>
        <form class="stack" method="post" action="${action}/teams">${token}
          <label>Team <select name="teamId">${grants.orgTeams.map((t) => html`<option value="${t.id}">${t.title}</option>`)}</select></label>
          <label>Level ${roleSelect("role", "Team's level", "read", false)}</label>
          <div><button class="primary" type="submit">Give access</button></div></form>`
            : ""
        }`
    : html`<p class="muted small">Only organization admins, the site's creator and members with the admin level on this site can change who has access.</p>`;
  return html`<section class="card" id="access"><h2 style="margin-top:0">Who has access</h2>
      ${view.saved ? html`<p class="badge ok">Saved.</p>` : ""}
      <p class="muted small">Levels given here raise what a member's organization role gives them on this site.</p>
      ${
        grants.users.length + grants.teams.length === 0
          ? emptyNote("No member or team has a level of its own on this site.")
          : html`<ul class="plain">${grants.users.map(userRow)}${grants.teams.map(teamRow)}</ul>`
      }
      ${grants.more ? html`<p class="muted small">The first 100 of each are shown; the API lists them all.</p>` : ""}
      ${forms}</section>`;
}

export function redirectsPanel(view: {
  redirects: { rows: ShownRedirect[]; total: number };
  /** The forms' base address; undefined when the member may not change the site's redirects. */
  action: string | undefined;
  saved: string | undefined;
  csrf: string;
}): SafeHtml {
  const { rows, total } = view.redirects;
  const { action } = view;
  const token = html`<input type="hidden" name="_csrf" value="${view.csrf}">`;
  const shownDestination = (r: ShownRedirect) => r.destination ?? "";
  const row = (r: ShownRedirect, index: number) =>
    action
      ? html`<li><form class="inline" method="post" action="${action}/${r.id}">${token}
          <label>From <input name="source" value="${r.source}" required maxlength="512" aria-label="Source of redirect ${index + 1}"></label>
          <label>To <input name="destination" value="${shownDestination(r)}" required maxlength="2048" placeholder="(no longer exists)" aria-label="Destination of redirect ${index + 1}"></label>
          <label class="check"><input type="checkbox" name="permanent" value="on"${r.permanent ? html` checked` : ""}> Permanent</label>
          <button type="submit">Save</button></form>
          <form class="inline" method="post" action="${action}/${r.id}/delete">${token}<button type="submit" class="danger" aria-label="Delete the redirect of ${r.source}">Delete</button></form></li>`
      : html`<li><code>${r.source}</code> → ${r.destination ? html`<code>${r.destination}</code>` : html`<span class="muted">(no longer exists)</span>`}${r.permanent ? html` <span class="badge">permanent</span>` : ""}</li>`;
  const forms = action
    ? html`<h3>Add a redirect</h3>
        <form class="stack" method="post" action="${action}">${token}
          <label>From (a path on this site; end it with * for everything below) <input name="source" required maxlength="512" placeholder="/old-guide/*"></label>
          <label>To (an address on this site, or an http(s) URL) <input name="destination" required maxlength="2048" placeholder="/guides/install"></label>
          <label class="check"><input type="checkbox" name="permanent" value="on"> Permanent (308: browsers and search engines remember it)</label>
          <div><button class="primary" type="submit">Add redirect</button></div></form>
        <h3>Paste a list</h3>
        <form class="stack" method="post" action="${action}/bulk">${token}
          <label>One redirect a line: source, destination, and "permanent" for a permanent one. A source that already has a redirect gets the new destination. Nothing is saved unless every line is right.
            <textarea name="lines" rows="6" required placeholder="/old-page /guides/new-page permanent&#10;/blog/* https://blog.example.com"></textarea></label>
          <div><button class="primary" type="submit">Add these redirects</button></div></form>`
    : html`<p class="muted small">Only members with the create role, or the edit level on this site, can change its redirects.</p>`;
  return html`<section class="card" id="redirects"><h2 style="margin-top:0">Redirects</h2>
      ${view.saved ? html`<p class="badge ok">${view.saved}</p>` : ""}
      <p class="muted small">A reader who opens an address that leads nowhere on the published site is sent on by the redirect whose source matches it.</p>
      ${rows.length === 0 ? emptyNote("This site has no redirect.") : html`<ul class="plain">${rows.map(row)}</ul>`}
      ${total > rows.length ? html`<p class="muted small">The ${rows.length} newest of ${total} are shown; the API lists them all.</p>` : ""}
      ${forms}</section>`;
}
