/**
 * The web app's sign-in and a minimal signed-in home: who is signed in, their organizations (with
 * the organization's SSO enforcement applied), and their own API tokens. Sessions, CSRF and forms
 * are set up here for these routes and the SAML endpoints only; the /v1 API never sees them.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import type { UserRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { statusOfDomainError } from "../../http/error-handler.js";
import { HttpError } from "../../http/errors.js";
import { DomainError } from "../../lib/errors.js";
import { listOrganizationsOfUser } from "../organizations/organizations.queries.js";
import { webAccessAllowed } from "../saml/saml.policy.js";
import { samlProviderStatus, serviceProviderUrls } from "../saml/saml.presenter.js";
import { allSamlProviders } from "../saml/saml.queries.js";
import { createApiToken, listApiTokens, revokeApiToken } from "../users/tokens.queries.js";
import { getUserById } from "../users/users.queries.js";
import { webBrowseRoutes } from "./web.browse.routes.js";
import { webChangesRoutes } from "./web.changes.routes.js";
import { html, page, type SafeHtml } from "./web.html.js";
import { peekLoginLink, useLoginLink } from "./web.queries.js";
import { samlFlowRoutes, samlLogoutUrl } from "./web.saml.routes.js";
import { registerWebSessions, type SignedInWith, safeNext, startSession } from "./web.session.js";

const TokenLabel = Type.String({ maxLength: 100 });

export const webRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;
  // Pages and browser endpoints are not part of the API document.
  app.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await registerWebSessions(app, deps);

  app.addHook("onSend", (_request, reply, _payload, done) => {
    // Pages are never cached; the fingerprinted assets set their own (immutable) caching.
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    reply.header("x-frame-options", "DENY");
    // Page content (web.render.ts) needs the renderer's own stylesheets, scripts and fonts, images
    // from anywhere (as on the published site), and the players of the embeds it knows.
    reply.header(
      "content-security-policy",
      "default-src 'none'; style-src 'self' 'unsafe-inline'; script-src 'self'; font-src 'self'; img-src 'self' https: http: data:; " +
        "frame-src https://www.youtube-nocookie.com https://player.vimeo.com https://www.loom.com; form-action 'self'; frame-ancestors 'none'",
    );
    done();
  });

  app.setErrorHandler((error: FastifyError | DomainError | HttpError, request, reply) => {
    let status = 500;
    let message = `Something went wrong (request ${request.id}). The server log has the details.`;
    const fastifyError = error as FastifyError;
    const clientStatus = fastifyError.statusCode ?? 500;
    if (error instanceof DomainError) [status, message] = [statusOfDomainError[error.kind], error.message];
    else if (error instanceof HttpError) [status, message] = [error.statusCode, error.message];
    else if (fastifyError.code === "FST_CSRF_INVALID_TOKEN" || fastifyError.code === "FST_CSRF_MISSING_SECRET") {
      [status, message] = [403, "The form has expired or did not come from this site. Go back, reload the page and try again."];
    } else if (fastifyError.validation) [status, message] = [400, `The form is not valid: ${error.message}`];
    else if (clientStatus < 500) [status, message] = [clientStatus, error.message];
    if (status >= 500) request.log.error({ err: error }, "web app error");
    return reply
      .status(status)
      .type("text/html; charset=utf-8")
      .send(
        page(
          status === 404 ? "Not found" : "Cannot continue",
          html`<h1>${status === 404 ? "Not found" : "Cannot continue"}</h1><p class="error">${message}</p><p><a href="/app">Back to Quire</a></p>`,
        ),
      );
  });

  await app.register(samlFlowRoutes, { deps });
  await app.register(webBrowseRoutes, { deps });
  await app.register(webChangesRoutes, { deps });

  /** The signed-in user, or undefined (a session whose user was deleted counts as signed out). */
  async function currentUser(request: FastifyRequest): Promise<{ user: UserRow; via: SignedInWith } | undefined> {
    const userId = request.session.get("userId");
    const via = request.session.get("signedInWith");
    if (!userId || !via) return undefined;
    const user = await getUserById(db, userId);
    return user ? { user, via } : undefined;
  }

  function send(reply: FastifyReply, status: number, body: string) {
    return reply.status(status).type("text/html; charset=utf-8").send(body);
  }

  function toLogin(request: FastifyRequest, reply: FastifyReply) {
    return reply.redirect(`/app/login?next=${encodeURIComponent(safeNext(request.url))}`, 303);
  }

  app.get("/app", async (request, reply) => {
    const signedIn = await currentUser(request);
    if (!signedIn) return toLogin(request, reply);
    const { user, via } = signedIn;
    const orgs = (await listOrganizationsOfUser(db, user.id, { limit: 1000 })).rows;
    const items: SafeHtml[] = [];
    for (const org of orgs) {
      const allowed = webAccessAllowed(org, { role: org.memberRole }, via);
      let detail: SafeHtml;
      if (allowed) {
        detail = html`<p class="muted">Role: ${org.memberRole ?? "guest"}${org.sso === 1 ? " · single sign-on required" : ""}</p>`;
      } else {
        const providers = (await allSamlProviders(db, org.id)).filter((p) => samlProviderStatus(p) === "active");
        detail = html`<p class="error">This organization requires single sign-on.</p>
          <p>${providers.map((p) => html`<a class="button" href="${serviceProviderUrls(urls, p.id).startURL}?next=/app">Sign in with ${p.label}</a> `)}</p>`;
      }
      const title = allowed ? html`<a href="/app/o/${encodeURIComponent(org.id)}">${org.title}</a>` : org.title;
      items.push(html`<div class="card" data-org="${org.id}"><strong>${title}</strong>${detail}</div>`);
    }
    const viaText = via.method === "saml" ? "single sign-on" : "a sign-in link";
    const body = html`<h1>Welcome, ${user.displayName}</h1>
      <p class="muted">Signed in as ${user.email} with ${viaText}.</p>
      <h2>Your organizations</h2>
      ${items.length > 0 ? items : html`<p class="muted">You are not a member of any organization yet.</p>`}
      <h2>API tokens</h2><p><a href="/app/tokens">Manage your API tokens</a></p>`;
    return send(reply, 200, page("Home", body, { user, csrf: reply.generateCsrf() }));
  });

  app.get(
    "/app/login",
    {
      schema: {
        querystring: Type.Object({
          next: Type.Optional(Type.String({ maxLength: 2000 })),
          org: Type.Optional(Type.String({ maxLength: 100 })),
        }),
      },
    },
    async (request, reply) => {
      const next = safeNext(request.query.next);
      if (await currentUser(request)) return reply.redirect(next, 303);
      let buttons: SafeHtml = html``;
      if (request.query.org) {
        const providers = (await allSamlProviders(db, request.query.org)).filter((p) => samlProviderStatus(p) === "active");
        buttons =
          providers.length > 0
            ? html`<p>${providers.map(
                (p) =>
                  html`<a class="button" href="${serviceProviderUrls(urls, p.id).startURL}?next=${encodeURIComponent(next)}">Sign in with ${p.label}</a> `,
              )}</p>`
            : html`<p class="error">No single sign-on is set up for an organization with this id.</p>`;
      }
      const body = html`<h1>Sign in to Quire</h1>
        <h2>With your organization's single sign-on</h2>
        ${buttons}
        <form method="get" action="/app/login"><input type="hidden" name="next" value="${next}">
          <label>${request.query.org ? "Another organization's id" : "Organization id"} <input name="org" size="24" required maxlength="100"></label>
          <button type="submit">Continue</button></form>
        <h2>Without single sign-on</h2>
        <p class="muted">Ask an operator for a one-time sign-in link: <code>quire users login-link --user you@example.com</code>.</p>`;
      return send(reply, 200, page("Sign in", body));
    },
  );

  const LinkParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
  const usedOrExpired = "This sign-in link has expired or was already used. Ask for a new one.";

  // Opening the link shows a button: a link preview or scanner that fetches the URL does not use it up.
  app.get("/app/login/link/:token", { schema: { params: LinkParams } }, async (request, reply) => {
    const userId = await peekLoginLink(db, request.params.token);
    const user = userId ? await getUserById(db, userId) : undefined;
    if (!user) return send(reply, 410, page("Sign-in link", html`<h1>Sign-in link</h1><p class="error">${usedOrExpired}</p>`));
    const body = html`<h1>Sign in as ${user.displayName}</h1><p class="muted">${user.email}</p>
      <form method="post" action="/app/login/link/${request.params.token}"><input type="hidden" name="_csrf" value="${reply.generateCsrf()}"><button type="submit">Sign in</button></form>`;
    return send(reply, 200, page("Sign in", body));
  });

  app.post("/app/login/link/:token", { schema: { params: LinkParams }, preHandler: app.csrfProtection }, async (request, reply) => {
    const userId = await useLoginLink(db, request.params.token);
    const user = userId ? await getUserById(db, userId) : undefined;
    if (!user) return send(reply, 410, page("Sign-in link", html`<h1>Sign-in link</h1><p class="error">${usedOrExpired}</p>`));
    await startSession(request, user.id, { method: "link" });
    return reply.redirect("/app", 303);
  });

  app.post("/app/logout", { preHandler: app.csrfProtection }, async (request, reply) => {
    const via = request.session.get("signedInWith");
    // Quire's own session ends first, whatever the identity provider does next.
    await request.session.destroy();
    const idp = await samlLogoutUrl(deps, via, request.log);
    if (!idp) return reply.redirect("/app/login", 303);
    // A refresh, not a redirect: the form's CSP (form-action 'self') would stop a redirect to the IdP.
    return send(
      reply,
      200,
      page(
        "Signing out",
        html`<h1>Signed out of Quire</h1><p>Signing you out of ${idp.label}… <a id="continue-logout" href="${idp.url}">Continue</a></p>`,
        { head: html`<meta http-equiv="refresh" content="0;url=${idp.url}">` },
      ),
    );
  });

  async function tokensPage(user: UserRow, csrf: string, created?: { token: string; label: string }) {
    const tokens = await listApiTokens(db, user.id);
    const rows = tokens.map(
      (t) => html`<tr><td>${t.label ?? "(no label)"}</td><td>${t.createdAt.slice(0, 16).replace("T", " ")}</td>
        <td>${t.lastUsedAt ? t.lastUsedAt.slice(0, 16).replace("T", " ") : "never"}</td>
        <td>${t.revokedAt ? "revoked" : html`<form class="inline" method="post" action="/app/tokens/${t.id}/revoke"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Revoke</button></form>`}</td></tr>`,
    );
    return html`<h1>API tokens</h1>
      ${created ? html`<div class="card"><p>Your new token${created.label ? html` “${created.label}”` : ""}. Copy it now: it is shown only once.</p><code class="secret" id="new-token">${created.token}</code></div>` : ""}
      <form method="post" action="/app/tokens"><input type="hidden" name="_csrf" value="${csrf}">
        <label>Label <input name="label" maxlength="100"></label> <button type="submit">Create a token</button></form>
      <table><thead><tr><th>Label</th><th>Created (UTC)</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  }

  app.get("/app/tokens", async (request, reply) => {
    const signedIn = await currentUser(request);
    if (!signedIn) return toLogin(request, reply);
    const csrf = reply.generateCsrf();
    return send(reply, 200, page("API tokens", await tokensPage(signedIn.user, csrf), { user: signedIn.user, csrf }));
  });

  app.post(
    "/app/tokens",
    { schema: { body: Type.Object({ label: Type.Optional(TokenLabel) }) }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const signedIn = await currentUser(request);
      if (!signedIn) return toLogin(request, reply);
      const label = request.body.label?.trim() ?? "";
      const { token } = await createApiToken(db, signedIn.user.id, label || undefined);
      const csrf = reply.generateCsrf();
      return send(reply, 201, page("API tokens", await tokensPage(signedIn.user, csrf, { token, label }), { user: signedIn.user, csrf }));
    },
  );

  app.post(
    "/app/tokens/:tokenId/revoke",
    { schema: { params: Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 100 }) }) }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const signedIn = await currentUser(request);
      if (!signedIn) return toLogin(request, reply);
      const own = (await listApiTokens(db, signedIn.user.id)).find((t) => t.id === request.params.tokenId);
      if (!own) throw new HttpError(404, "You have no API token with this id.");
      await revokeApiToken(db, own.id);
      return reply.redirect("/app/tokens", 303);
    },
  );
};
