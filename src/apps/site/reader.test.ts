/**
 * decideReader against real stored sites, share links, signing keys, schemas and members, through a
 * probe route that mounts it as the site routes do (`/s/<basename>/...`) and answers the decision.
 */

import Fastify, { type FastifyInstance } from "fastify";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../test/helpers/web.js";
import { SESSION_COOKIE, SITE_MEMBER_COOKIE } from "../../http/member-session.js";
import { signMemberClaims } from "../../lib/member-claims.js";
import { decideReader } from "./reader.steps.js";

let ctx: TestContext;
let probe: FastifyInstance;

beforeAll(async () => {
  ctx = await createTestContext();
  probe = Fastify();
  probe.route({
    method: ["GET", "POST"],
    url: "/s/:basename/*",
    handler: async (request) => {
      const { basename, "*": rest } = request.params as { basename: string; "*": string };
      const site = await ctx.db.selectFrom("sites").selectAll().where("basename", "=", basename).executeTakeFirstOrThrow();
      const path = new URL(rest, "http://x/").pathname;
      const segments = path.split("/").filter(Boolean);
      return decideReader(ctx.deps, site, request, segments, `/s/${basename}`);
    },
  });
  await probe.ready();
}, 120_000);
afterAll(async () => {
  await probe.close();
  await ctx.close();
});

async function decide(url: string, headers: Record<string, string> = {}, method: "GET" | "POST" = "GET") {
  const res = await probe.inject({ method, url, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function scenario(visibility: string, options: { publish?: boolean } = {}) {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Docs", visibility, spaces: [base.space.id] });
  const url = `/v1/orgs/${base.org.id}/sites/${site.id}`;
  if (options.publish !== false) expect((await ctx.as(base.owner).post(`${url}/publish`)).status).toBe(200);
  const key = (await ctx.as(base.owner).get(`${url}/publishing/auth`)).body.privateKey as string;
  return { ...base, site, url, key, at: `/s/${site.basename}` };
}

const sign = (key: string, claims: Record<string, unknown> = {}, expiresIn: string | number = "2h") =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime(expiresIn).sign(new TextEncoder().encode(key));

/** The `name=value` of each Set-Cookie of a decision. */
const cookieHeader = (setCookies: string[]) => setCookies.map((c) => c.split(";")[0]).join("; ");

describe("public, unlisted and unpublished sites", () => {
  it("admits anyone to public and unlisted sites, without claims; only public is indexable", async () => {
    const pub = await scenario("public");
    expect(await decide(`${pub.at}/page`)).toEqual({
      kind: "read",
      reader: { claims: {}, member: false, indexable: true, variantKey: "v0", via: "anyone" },
      prefix: [],
      setCookies: [],
    });
    const unlisted = await scenario("unlisted");
    expect((await decide(`${unlisted.at}/page`)).reader.indexable).toBe(false);
  });

  it("hides an unpublished site from visitors but not from members who may read its spaces", async () => {
    const s = await scenario("public", { publish: false });
    expect(await decide(`${s.at}/page`)).toEqual({ kind: "not-found" });
    expect(await decide(`${s.at}/page`, { authorization: `Bearer ${s.members.read.token}` })).toMatchObject({
      kind: "read",
      reader: { member: true, via: "member" },
    });
    // Guests (no role) and outsiders are not admitted; an unknown token neither (and is no 401 here).
    expect(await decide(`${s.at}/page`, { authorization: `Bearer ${s.members.guest.token}` })).toEqual({ kind: "not-found" });
    expect(await decide(`${s.at}/page`, { authorization: `Bearer ${s.outsider.token}` })).toEqual({ kind: "not-found" });
    expect(await decide(`${s.at}/page`, { authorization: "Bearer qr_unknown" })).toEqual({ kind: "not-found" });
  });

  it("admits a member only when they may read every space of the site", async () => {
    const s = await scenario("share-link");
    const read = { authorization: `Bearer ${s.members.read.token}` };
    expect((await decide(`${s.at}/page`, read)).reader).toMatchObject({ member: true, via: "member" });
    const other = await createSpace(ctx, s.owner, s.org.id, { title: "Internal" });
    await setDefaultLevel(ctx, s.owner, { space: other.id }, null);
    const now = new Date().toISOString();
    await ctx.db
      .insertInto("siteSpaces")
      .values({
        id: `ss-${other.id}`,
        siteId: s.site.id,
        sectionId: null,
        spaceId: other.id,
        path: "internal",
        condition: null,
        position: "b0",
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    expect(await decide(`${s.at}/page`, read)).toEqual({ kind: "not-found" });
    expect((await decide(`${s.at}/page`, { authorization: `Bearer ${s.owner.token}` })).reader.member).toBe(true);
  });
});

describe("members signed in to the web app", () => {
  async function signedIn(user: { id: string }) {
    // Signed in with a one-time link (WebClient.signedIn fails unless the sign-in answers 303).
    const browser = await WebClient.signedIn(ctx, user);
    // What the browser sends to a site under /s: the pass signing in gave, not the session.
    return browser.cookieHeader("/s/site/page") ?? "";
  }

  it("read an unpublished site with the pass signing in gives; a forged one or a signed-out session's does not", async () => {
    const s = await scenario("share-link", { publish: false });
    const cookie = await signedIn(s.members.read);
    expect(cookie).toMatch(new RegExp(`^${SITE_MEMBER_COOKIE}=[^;]+$`));
    expect((await decide(`${s.at}/page`, { cookie })).reader).toMatchObject({ member: true, via: "member" });
    const [name, value] = cookie.split("=") as [string, string];
    const forged = `${name}=${decodeURIComponent(value).replace(/\.[^.]*$/, ".AAAA")}`;
    expect(await decide(`${s.at}/page`, { cookie: forged })).toEqual({ kind: "not-found" });
    expect(await decide(`${s.at}/page`, { cookie: await signedIn(s.outsider) })).toEqual({ kind: "not-found" });
    await ctx.db.deleteFrom("webSessions").execute();
    expect(await decide(`${s.at}/page`, { cookie })).toEqual({ kind: "not-found" });
  });

  it("are not recognized by the web app's session cookie, which sites never receive", async () => {
    const s = await scenario("share-link", { publish: false });
    const browser = await WebClient.signedIn(ctx, s.members.read);
    const session = `${SESSION_COOKIE}=${browser.cookies.get(SESSION_COOKIE)}`;
    expect(await decide(`${s.at}/page`, { cookie: session })).toEqual({ kind: "not-found" });
  });

  it("follow the organization's SSO enforcement: a link sign-in does not count where SSO is required", async () => {
    const s = await scenario("share-link", { publish: false });
    await ctx.db.updateTable("organizations").set({ sso: 1 }).where("id", "=", s.org.id).execute();
    expect(await decide(`${s.at}/page`, { cookie: await signedIn(s.members.read) })).toEqual({ kind: "not-found" });
    // Admins may still come in by a link (to repair SSO), as in the web app.
    expect((await decide(`${s.at}/page`, { cookie: await signedIn(s.owner) })).reader.member).toBe(true);
  });
});

describe("share links", () => {
  it("admit with an active key as the first segment and consume it; deactivated, deleted and other sites' keys do not", async () => {
    const s = await scenario("share-link");
    const link = (await ctx.as(s.owner).post(`${s.url}/share-links`, { name: "Partners" })).body;
    const key = link.urls.published.split("/").pop();
    expect(await decide(`${s.at}/page`)).toEqual({ kind: "not-found" });
    expect(await decide(`${s.at}`.concat("/", "x".repeat(32), "/page"))).toEqual({ kind: "not-found" });
    const admitted = await decide(`${s.at}/${key}/page`);
    expect(admitted).toMatchObject({ kind: "read", prefix: [key], reader: { via: "share-link", indexable: false } });
    expect(admitted.reader.variantKey).not.toBe("v0");

    const other = await scenario("share-link");
    const otherKey = (await ctx.as(other.owner).post(`${other.url}/share-links`, { name: "P" })).body.urls.published.split("/").pop();
    expect(await decide(`${s.at}/${otherKey}/page`)).toEqual({ kind: "not-found" });

    await ctx.as(s.owner).patch(`${s.url}/share-links/${link.id}`, { active: false });
    expect(await decide(`${s.at}/${key}/page`)).toEqual({ kind: "not-found" });
    await ctx.as(s.owner).patch(`${s.url}/share-links/${link.id}`, { active: true });
    expect((await decide(`${s.at}/${key}/page`)).kind).toBe("read");
    await ctx.as(s.owner).delete(`${s.url}/share-links/${link.id}`);
    expect(await decide(`${s.at}/${key}/page`)).toEqual({ kind: "not-found" });
  });
});

describe("visitor tokens", () => {
  async function visitorSite() {
    const s = await scenario("visitor-auth");
    const res = await ctx
      .as(s.owner)
      .patch(`${s.url}/publishing/auth`, { backend: "custom", fallbackURL: "https://login.example.com/sso?app=docs" });
    expect(res.status, res.text).toBe(200);
    return s;
  }

  it("sends a visitor without a token to the login URL with location (the page from the site's root)", async () => {
    const s = await visitorSite();
    const decision = await decide(`${s.at}/guides/intro?tab=2`);
    expect(decision.kind).toBe("login");
    const location = new URL(decision.location);
    expect(location.origin + location.pathname).toBe("https://login.example.com/sso");
    expect(location.searchParams.get("app")).toBe("docs");
    expect(location.searchParams.get("location")).toBe("guides/intro?tab=2");
  });

  it("answers not-found without a login URL to send the visitor to", async () => {
    const s = await scenario("visitor-auth");
    expect(await decide(`${s.at}/page`)).toEqual({ kind: "not-found" });
  });

  it("takes a valid jwt_token into a path-scoped HttpOnly cookie, redirects without it, then reads the cookie", async () => {
    const s = await visitorSite();
    const token = await sign(s.key, { plan: "enterprise", sub: "u1" });
    const first = await decide(`${s.at}/guides/intro?jwt_token=${token}&tab=2`);
    expect(first).toMatchObject({
      kind: "read",
      redirect: `${s.at}/guides/intro?tab=2`,
      reader: { claims: { plan: "enterprise" }, via: "visitor-token" },
    });
    expect(first.reader.claims.sub).toBeUndefined();
    expect(first.setCookies).toHaveLength(1);
    const cookie = first.setCookies[0] as string;
    expect(cookie).toMatch(
      new RegExp(`^quire-visitor-token~[0-9a-f]{12}=${token}; Path=/s/${s.site.basename}; SameSite=Lax; HttpOnly; Max-Age=7\\d{3}$`),
    );
    const later = await decide(`${s.at}/guides/intro`, { cookie: cookieHeader(first.setCookies) });
    expect(later).toMatchObject({ kind: "read", setCookies: [], reader: { claims: { plan: "enterprise" } } });
    expect(later.redirect).toBeUndefined();
    expect(later.reader.variantKey).toBe(first.reader.variantKey);
    // The same token as a bearer header (tools).
    expect((await decide(`${s.at}/x`, { authorization: `Bearer ${token}` })).reader.claims).toEqual({ plan: "enterprise" });
  });

  it("refuses expired, wrongly signed, alg none, HS512 and other sites' tokens, and clears a bad cookie", async () => {
    const s = await visitorSite();
    const other = await scenario("visitor-auth");
    const bytes = new TextEncoder().encode(s.key);
    const [, payload] = (await sign(s.key, { plan: "x" })).split(".");
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${payload}.`;
    const bad = [
      await sign(s.key, {}, Math.floor(Date.now() / 1000) - 3600),
      await sign(other.key),
      await sign(`${s.key}x`),
      none,
      await new SignJWT({}).setProtectedHeader({ alg: "HS512" }).setExpirationTime("2h").sign(bytes),
      "not-a-token",
    ];
    for (const token of bad) {
      const decision = await decide(`${s.at}/page?jwt_token=${encodeURIComponent(token)}`);
      expect(decision.kind, token).toBe("login");
      expect(new URL(decision.location).searchParams.get("location")).toBe("page");
      const fromCookie = await decide(`${s.at}/page`, { cookie: `quire-visitor-token~${"0".repeat(12)}=x` });
      expect(fromCookie.kind).toBe("login");
    }
    // A regenerated key invalidates the tokens signed with the old one.
    const token = await sign(s.key);
    expect((await decide(`${s.at}/p?jwt_token=${token}`)).kind).toBe("read");
    await ctx.as(s.owner).post(`${s.url}/publishing/auth/regenerate`);
    expect((await decide(`${s.at}/p?jwt_token=${token}`)).kind).toBe("login");
  });

  it("scopes the cookie to the site: another site's cookie name does not carry over", async () => {
    const a = await visitorSite();
    const b = await visitorSite();
    const first = await decide(`${a.at}/p?jwt_token=${await sign(a.key)}`);
    expect((await decide(`${b.at}/p`, { cookie: cookieHeader(first.setCookies) })).kind).toBe("login");
  });

  it("brings signed claims on a public site too, and ignores a bad token there", async () => {
    const s = await scenario("public");
    const ok = await decide(`${s.at}/p?jwt_token=${await sign(s.key, { beta: true })}`);
    expect(ok.reader.claims).toEqual({ beta: true });
    const bad = await decide(`${s.at}/p?jwt_token=${await sign("wrong", { beta: true })}`);
    expect(bad).toMatchObject({ kind: "read", reader: { claims: {} }, redirect: `${s.at}/p` });
  });
});

describe("member claims from POST {org}/ping", () => {
  it("open the organization's visitor-auth sites with the member's claims, and no other organization's", async () => {
    const s = await scenario("visitor-auth");
    const token = (await ctx.as(s.members.read).post(`/v1/orgs/${s.org.id}/ping`)).body.serviceVisitorClaims;
    const first = await decide(`${s.at}/page?jwt_token=${token}`);
    expect(first).toMatchObject({
      kind: "read",
      redirect: `${s.at}/page`,
      reader: { claims: { member: true, role: "read" }, via: "visitor-token" },
    });
    expect((await decide(`${s.at}/page`, { cookie: cookieHeader(first.setCookies) })).reader.claims).toEqual({
      member: true,
      role: "read",
    });
    const other = await scenario("visitor-auth");
    expect(await decide(`${other.at}/page?jwt_token=${token}`)).toEqual({ kind: "not-found" });
    // The same shape signed with any other key is refused.
    const forged = await new SignJWT({ member: true, role: "admin" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("quire")
      .setAudience(`org:${s.org.id}`)
      .setSubject("x")
      .setExpirationTime("2h")
      .sign(new TextEncoder().encode("guess"));
    expect(await decide(`${s.at}/page?jwt_token=${forged}`)).toEqual({ kind: "not-found" });
  });
});

describe("member claims stand for the membership, checked on every use", () => {
  const ping = async (s: Awaited<ReturnType<typeof scenario>>, member: { token: string }) =>
    (await ctx.as(member.token).post(`/v1/orgs/${s.org.id}/ping`)).body.serviceVisitorClaims as string;
  const member = (s: Awaited<ReturnType<typeof scenario>>, userId: string) =>
    ctx.db.updateTable("members").where("orgId", "=", s.org.id).where("userId", "=", userId);

  it("are refused at once when the member is removed, also from the cookie they were kept in", async () => {
    const s = await scenario("visitor-auth");
    const token = await ping(s, s.members.edit);
    const first = await decide(`${s.at}/page?jwt_token=${token}`);
    expect(first.reader).toMatchObject({ via: "visitor-token", claims: { member: true, role: "edit" } });
    const removed = await ctx.as(s.owner).delete(`/v1/orgs/${s.org.id}/members/${s.members.edit.id}`);
    expect(removed.status).toBe(204);
    expect(await decide(`${s.at}/page?jwt_token=${token}`)).toEqual({ kind: "not-found" });
    expect(await decide(`${s.at}/page`, { cookie: cookieHeader(first.setCookies) })).toEqual({ kind: "not-found" });
    expect(await decide(`${s.at}/page`, { authorization: `Bearer ${token}` })).toEqual({ kind: "not-found" });
    // Added again later, the member needs a new token: the old one predates the membership.
    await ctx.db
      .insertInto("members")
      .values({
        orgId: s.org.id,
        userId: s.members.edit.id,
        role: "edit",
        sso: 0,
        disabled: 0,
        joinedAt: new Date(Date.now() + 1000).toISOString(),
        lastSeenAt: null,
      })
      .execute();
    expect(await decide(`${s.at}/page?jwt_token=${token}`)).toEqual({ kind: "not-found" });
  });

  it("are refused for a disabled member and a member made a guest, and carry the member's role of now", async () => {
    const s = await scenario("visitor-auth");
    const disabled = await ping(s, s.members.read);
    const demoted = await ping(s, s.members.comment);
    const changed = await ping(s, s.members.admin);
    await member(s, s.members.read.id).set({ disabled: 1 }).execute();
    expect(await decide(`${s.at}/page?jwt_token=${disabled}`)).toEqual({ kind: "not-found" });
    await member(s, s.members.comment.id).set({ role: null }).execute();
    expect(await decide(`${s.at}/page?jwt_token=${demoted}`)).toEqual({ kind: "not-found" });
    await member(s, s.members.admin.id).set({ role: "read" }).execute();
    expect((await decide(`${s.at}/page?jwt_token=${changed}`)).reader.claims).toEqual({ member: true, role: "read" });
  });

  it("are not issued to a guest, and a guest's forged-looking token from before is refused", async () => {
    const s = await scenario("visitor-auth");
    const res = await ctx.as(s.members.guest).post(`/v1/orgs/${s.org.id}/ping`);
    expect(res.status).toBe(200);
    expect(res.body.serviceVisitorClaims).toBeUndefined();
    // A token of the same shape for the guest, signed with the organization's real key (as the
    // server signed them before guests were refused), opens nothing.
    const old = await signMemberClaims(ctx.deps.secret, { orgId: s.org.id, userId: s.members.guest.id, role: null });
    expect(await decide(`${s.at}/page?jwt_token=${old}`)).toEqual({ kind: "not-found" });
  });

  it("expire after ten minutes", async () => {
    const s = await scenario("visitor-auth");
    // A membership an hour old, so that only the token's age can refuse it.
    await member(s, s.members.read.id)
      .set({ joinedAt: new Date(Date.now() - 3600_000).toISOString() })
      .execute();
    const elevenMinutesAgo = Date.now() - 11 * 60 * 1000;
    const stale = await signMemberClaims(ctx.deps.secret, {
      orgId: s.org.id,
      userId: s.members.read.id,
      role: "read",
      now: elevenMinutesAgo,
    });
    expect(await decide(`${s.at}/page?jwt_token=${stale}`)).toEqual({ kind: "not-found" });
    const fresh = await signMemberClaims(ctx.deps.secret, { orgId: s.org.id, userId: s.members.read.id, role: "read" });
    expect((await decide(`${s.at}/page?jwt_token=${fresh}`)).kind).toBe("read");
  });
});

describe("unsigned claims", () => {
  it("reads declared claims from visitor.* query parameters and *-visitor-public* cookies, typed by the schema", async () => {
    const s = await scenario("public");
    const schema = {
      type: "object",
      additionalProperties: false,
      properties: {
        plan: { type: "string", enum: ["free", "pro"], description: "Plan" },
        unsigned: {
          type: "object",
          description: "Unsigned claims of the site visitor.",
          additionalProperties: false,
          properties: {
            language: { type: "string", enum: ["en", "fr"], description: "Language" },
            beta: { type: "boolean", description: "Beta" },
          },
        },
      },
    };
    const put = await ctx.as(s.owner).put(`${s.url}/adaptive-schema`, { jsonSchema: schema });
    expect(put.status, put.text).toBe(200);
    const first = await decide(`${s.at}/p?visitor.language=fr&visitor.beta=true&visitor.plan=pro&visitor.other=1`);
    expect(first.reader.claims).toEqual({ unsigned: { language: "fr", beta: true } });
    expect(first.redirect).toBeUndefined();
    expect(first.setCookies[0]).toMatch(/^quire-visitor-public~[0-9a-f]{12}=/);
    const later = await decide(`${s.at}/p`, { cookie: cookieHeader(first.setCookies) });
    expect(later.reader.claims).toEqual({ unsigned: { language: "fr", beta: true } });
    expect(later.reader.variantKey).toBe(first.reader.variantKey);
    const own = await decide(`${s.at}/p`, { cookie: `gitbook-visitor-public=${encodeURIComponent('{"language":"en","secret":1}')}` });
    expect(own.reader.claims).toEqual({ unsigned: { language: "en" } });
  });
});

describe("preview links", () => {
  it("admit to an unpublished site with the claims they carry, kept in a cookie; a tampered link does not", async () => {
    const s = await scenario("visitor-auth", { publish: false });
    const res = await ctx.as(s.owner).get(`${s.url}/publishing/preview?claims=${encodeURIComponent("(plan:pro,beta:!t)")}`);
    expect(res.status, res.text).toBe(200);
    const url = new URL(res.body.url);
    const first = await decide(`${url.pathname}/page${url.search}`);
    expect(first).toMatchObject({
      kind: "read",
      reader: { via: "preview", claims: { plan: "pro", beta: true }, indexable: false },
      redirect: `${s.at}/page`,
    });
    const later = await decide(`${s.at}/other`, { cookie: cookieHeader(first.setCookies) });
    expect(later).toMatchObject({ kind: "read", reader: { via: "preview", claims: { plan: "pro", beta: true } } });
    const tampered = new URLSearchParams(url.search);
    tampered.set("claims", "(plan:enterprise)");
    expect(await decide(`${s.at}/page?${tampered}`)).toEqual({ kind: "not-found" });
  });
});
