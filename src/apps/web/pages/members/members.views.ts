/** An organization's members: the list, and for admins the invitation form and each member's role and removal. */
import { html, raw, type SafeHtml } from "../../../../content/html/safe-html.js";
import { emptyNote, when } from "../../common.views.js";

export const ROLE_CHOICES = ["admin", "create", "review", "edit", "comment", "read", "guest"] as const;

export interface MembersView {
  org: { id: string; title: string; defaultRole: string | null };
  members: { userId: string; displayName: string; email: string; role: string | null; joinedAt: string; pending: boolean }[];
  actorId: string;
  /** Admins invite, change roles and remove; others read. */
  admin: boolean;
  search: string;
  /** The next page of members, when there is one. */
  next?: string | undefined;
  notice?: string | undefined;
  csrf: string;
}

const roleName = (role: string | null) => role ?? "guest";

function roleOptions(selected: string): SafeHtml[] {
  return ROLE_CHOICES.map((r) => html`<option value="${r}" ${r === selected ? raw("selected") : ""}>${r}</option>`);
}

export function membersBody(view: MembersView): SafeHtml {
  const base = `/app/o/${encodeURIComponent(view.org.id)}/members`;
  const csrf = html`<input type="hidden" name="_csrf" value="${view.csrf}">`;
  const rows = view.members.map((m) => {
    const you = m.userId === view.actorId;
    const role = view.admin
      ? html`<form class="inline" method="post" action="${base}/${m.userId}/role">${csrf}<select name="role" aria-label="Role of ${m.displayName}">${roleOptions(roleName(m.role))}</select> <button type="submit" class="small">Change role</button></form>`
      : html`${roleName(m.role)}`;
    const remove =
      view.admin || you
        ? html`<form class="inline" method="post" action="${base}/${m.userId}/remove">${csrf}<button type="submit" class="small danger" aria-label="${you ? "Leave the organization" : `Remove ${m.displayName}`}">${you ? "Leave" : "Remove"}</button></form>`
        : "";
    return html`<tr data-member="${m.userId}"><td>${m.displayName}${you ? html` <span class="muted">(you)</span>` : ""}${m.pending ? html` <span class="badge wait">invited</span>` : ""}<div class="muted small">${m.email}</div></td>
      <td>${role}</td><td class="small">${when(m.joinedAt)}</td><td>${remove}</td></tr>`;
  });
  const invite = view.admin
    ? html`<details class="menu" ${view.members.length <= 1 ? raw("open") : ""}><summary class="button primary">Invite people</summary>
        <form method="post" action="${base}/invite" class="stack card" id="invite-form">${csrf}
          <label>Email addresses <textarea name="emails" rows="3" required maxlength="20000" placeholder="ada@example.com, grace@example.com"></textarea>
            <span class="muted small">Separated by commas, spaces or lines; up to 100 at once.</span></label>
          <label>Role <select name="role">${roleOptions(view.org.defaultRole ?? "guest")}</select></label>
          <button type="submit" class="primary">Invite</button></form></details>`
    : html`<p class="muted">Only organization admins invite people and change roles.</p>`;
  return html`<div class="page-head"><h1>Members of ${view.org.title}</h1></div>
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ""}
    ${invite}
    <form method="get" action="${base}" role="search" class="actions"><input type="search" name="search" value="${view.search}" maxlength="256" aria-label="Find members by name or email"> <button type="submit">Find</button></form>
    ${
      rows.length > 0
        ? html`<div class="table-wrap"><table><thead><tr><th>Member</th><th>Role</th><th>Joined</th><th><span class="muted">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
        : emptyNote("No member matches.")
    }
    ${view.next ? html`<p><a href="${base}?${new URLSearchParams({ ...(view.search ? { search: view.search } : {}), page: view.next }).toString()}">More members</a></p>` : ""}`;
}
