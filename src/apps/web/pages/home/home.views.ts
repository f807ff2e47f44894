/** The home page, sign-in pages and API tokens as HTML: pure functions of what their handlers loaded. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";

/** An organization on the home page: a link when the member may use it, else its single sign-on buttons. */
export interface HomeOrganization {
  id: string;
  title: string;
  role: string | null;
  sso: boolean;
  /** Whether the member may use it as they signed in; when not, where its single sign-on starts. */
  allowed: boolean;
  signIns: { label: string; href: string }[];
}

function signInButtons(signIns: readonly { label: string; href: string }[]): SafeHtml {
  return html`<p>${signIns.map((p) => html`<a class="button" href="${p.href}">Sign in with ${p.label}</a> `)}</p>`;
}

export function homeBody(view: { displayName: string; email: string; via: "saml" | "oidc" | "link"; orgs: HomeOrganization[] }): SafeHtml {
  const items = view.orgs.map((org) => {
    const detail = org.allowed
      ? html`<p class="muted">Role: ${org.role ?? "guest"}${org.sso ? " · single sign-on required" : ""}</p>`
      : html`<p class="error">This organization requires single sign-on.</p>
          ${signInButtons(org.signIns)}`;
    const title = org.allowed ? html`<a href="/app/o/${encodeURIComponent(org.id)}">${org.title}</a>` : org.title;
    return html`<div class="card" data-org="${org.id}"><strong>${title}</strong>${detail}</div>`;
  });
  const viaText = view.via === "link" ? "a sign-in link" : view.via === "oidc" ? "single sign-on (OpenID Connect)" : "single sign-on";
  return html`<h1>Welcome, ${view.displayName}</h1>
      <p class="muted">Signed in as ${view.email} with ${viaText}.</p>
      <h2>Your organizations</h2>
      ${items.length > 0 ? items : html`<p class="muted">You are not a member of any organization yet.</p>`}
      <h2>API tokens</h2><p><a href="/app/tokens">Manage your API tokens</a></p>`;
}

/** The sign-in page; `org` is the organization id typed, `signIns` its single sign-on (none: no such organization with one). */
export function loginBody(view: { next: string; org?: string; signIns: { label: string; href: string }[] }): SafeHtml {
  let buttons: SafeHtml = html``;
  if (view.org) {
    buttons =
      view.signIns.length > 0
        ? signInButtons(view.signIns)
        : html`<p class="error">No single sign-on is set up for an organization with this id.</p>`;
  }
  return html`<h1>Sign in to Quire</h1>
        <h2>With your organization's single sign-on</h2>
        ${buttons}
        <form method="get" action="/app/login"><input type="hidden" name="next" value="${view.next}">
          <label>${view.org ? "Another organization's id" : "Organization id"} <input name="org" size="24" required maxlength="100"></label>
          <button type="submit">Continue</button></form>
        <h2>Without single sign-on</h2>
        <p class="muted">Ask an operator for a one-time sign-in link: <code>quire users login-link --user you@example.com</code>.</p>`;
}

export const LINK_USED_OR_EXPIRED = html`<h1>Sign-in link</h1><p class="error">This sign-in link has expired or was already used. Ask for a new one.</p>`;

/** Opening a sign-in link shows a button: a link preview or scanner that fetches the URL does not use it up. */
export function loginLinkBody(view: { displayName: string; email: string; token: string; csrf: string }): SafeHtml {
  return html`<h1>Sign in as ${view.displayName}</h1><p class="muted">${view.email}</p>
      <form method="post" action="/app/login/link/${view.token}"><input type="hidden" name="_csrf" value="${view.csrf}"><button type="submit">Sign in</button></form>`;
}

export function signingOutBody(idp: { label: string; url: string }): SafeHtml {
  return html`<h1>Signed out of Quire</h1><p>Signing you out of ${idp.label}… <a id="continue-logout" href="${idp.url}">Continue</a></p>`;
}

/** An API token as its list shows it (never its secret, which is shown once, at creation). */
export interface TokenListItem {
  id: string;
  label: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const minute = (iso: string) => iso.slice(0, 16).replace("T", " ");

/** The member's API tokens; `created` is a token just made, shown this once. */
export function tokensBody(tokens: readonly TokenListItem[], csrf: string, created?: { token: string; label: string }): SafeHtml {
  const rows = tokens.map(
    (t) => html`<tr><td>${t.label ?? "(no label)"}</td><td>${minute(t.createdAt)}</td>
        <td>${t.lastUsedAt ? minute(t.lastUsedAt) : "never"}</td>
        <td>${t.revokedAt ? "revoked" : html`<form class="inline" method="post" action="/app/tokens/${t.id}/revoke"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Revoke</button></form>`}</td></tr>`,
  );
  return html`<h1>API tokens</h1>
      ${created ? html`<div class="card"><p>Your new token${created.label ? html` “${created.label}”` : ""}. Copy it now: it is shown only once.</p><code class="secret" id="new-token">${created.token}</code></div>` : ""}
      <form method="post" action="/app/tokens"><input type="hidden" name="_csrf" value="${csrf}">
        <label>Label <input name="label" maxlength="100"></label> <button type="submit">Create a token</button></form>
      <table><thead><tr><th>Label</th><th>Created (UTC)</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}
