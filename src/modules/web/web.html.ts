import { html, raw, type SafeHtml } from "../../content/html/safe-html.js";

export { escapeHtml, html, raw, SafeHtml } from "../../content/html/safe-html.js";

const STYLE = raw(`<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
  header { display: flex; justify-content: space-between; align-items: center; border-bottom: 1px solid #d0d7de; margin-bottom: 1.5rem; }
  h1 { font-size: 1.5rem; } a { color: #0969da; }
  .card { border: 1px solid #d0d7de; border-radius: 6px; padding: .75rem 1rem; margin: .75rem 0; }
  .muted { color: #59636e; } .error { color: #d1242f; }
  button, .button { font: inherit; padding: .3rem .8rem; border: 1px solid #d0d7de; border-radius: 6px; background: #f6f8fa; cursor: pointer; color: inherit; text-decoration: none; display: inline-block; }
  code.secret { display: block; padding: .5rem; background: #fff8c5; word-break: break-all; }
  table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #d0d7de; }
  form.inline { display: inline; }
</style>`);

export interface PageUser {
  displayName: string;
  email: string;
}

/** A whole page. `signOut` carries the CSRF token for the header's sign-out form. */
export function page(title: string, body: SafeHtml, options: { user?: PageUser; csrf?: string } = {}): string {
  const header = options.user
    ? html`<header><p><a href="/app">Quire</a></p><p>${options.user.displayName} <span class="muted">(${options.user.email})</span>
        <form class="inline" method="post" action="/app/logout"><input type="hidden" name="_csrf" value="${options.csrf ?? ""}"><button type="submit">Sign out</button></form></p></header>`
    : html`<header><p><a href="/app">Quire</a></p></header>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Quire</title>${STYLE}</head>
<body>${header}<main>${body}</main></body></html>`.value;
}
