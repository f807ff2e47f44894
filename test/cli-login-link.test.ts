/** `quire users login-link`: a one-time sign-in link for the web app, valid 15 minutes. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/main.js";
import { createTestContext, type TestContext } from "./helpers/app.js";
import { createUser } from "./helpers/factories.js";
import { WebClient } from "./helpers/web.js";

let ctx: TestContext;
const saved = { ...process.env };
beforeAll(async () => {
  ctx = await createTestContext();
  const location = ctx.database.location;
  process.env.QUIRE_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "quire-cli-"));
  process.env.LOG_LEVEL = "silent";
  process.env.QUIRE_PUBLIC_URL = "https://docs.example.test";
  if (location.databaseUrl) process.env.DATABASE_URL = location.databaseUrl;
  else {
    delete process.env.DATABASE_URL;
    process.env.QUIRE_DATA_DIR = path.dirname(location.sqlitePath ?? "");
  }
});
afterAll(async () => {
  process.env = saved;
  await ctx.close();
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["node", "quire", ...args], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("quire users login-link", () => {
  it("prints a link under QUIRE_PUBLIC_URL that signs the user in once, within 15 minutes", async () => {
    const user = await createUser(ctx, { displayName: "Cli Person" });
    const before = Date.now();
    const res = await run("users", "login-link", "--user", user.email.toUpperCase(), "--json");
    expect(res.code, res.err).toBe(0);
    const json = JSON.parse(res.out);
    expect(Object.keys(json)).toEqual(["url", "expiresAt"]);
    expect(json.url).toMatch(/^https:\/\/docs\.example\.test\/app\/login\/link\/[A-Za-z0-9]{43}$/);
    const ttl = Date.parse(json.expiresAt) - before;
    expect(ttl).toBeGreaterThan(14 * 60 * 1000);
    expect(ttl).toBeLessThanOrEqual(15 * 60 * 1000 + 5000);

    const linkPath = new URL(json.url).pathname;
    const browser = new WebClient(ctx);
    const form = await browser.get(linkPath);
    expect(form.text).toContain("Sign in as Cli Person");
    expect((await browser.post(linkPath, { _csrf: WebClient.csrfOf(form.text) })).status).toBe(303);
    expect((await browser.get("/app")).text).toContain("Welcome, Cli Person");
    expect((await new WebClient(ctx).get(linkPath)).status).toBe(410);

    const plain = await run("users", "login-link", "--user", user.id);
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/^https:\/\/docs\.example\.test\/app\/login\/link\/\S+\n\(valid once, until .+\)$/);
  });

  it("verifies the address of an account nobody had verified, and leaves one a provider vouched for as it is", async () => {
    const invited = await createUser(ctx, { emailVerified: false });
    await WebClient.signedIn(ctx, invited);
    expect(await ctx.db.selectFrom("users").selectAll().where("id", "=", invited.id).executeTakeFirstOrThrow()).toMatchObject({
      emailVerified: 1,
      emailVerifiedVia: "sign-in-link",
    });
    const vouched = await createUser(ctx, { verification: { via: "idp", orgId: "o-elsewhere" } });
    await WebClient.signedIn(ctx, vouched);
    expect(await ctx.db.selectFrom("users").selectAll().where("id", "=", vouched.id).executeTakeFirstOrThrow()).toMatchObject({
      emailVerified: 0,
      emailVerifiedVia: "idp",
      emailVouchedBy: "o-elsewhere",
    });
  });

  it("exits with 1 for an unknown user", async () => {
    const res = await run("users", "login-link", "--user", "nobody@example.test");
    expect(res.code).toBe(1);
    expect(res.err).toContain('No user with email "nobody@example.test"');
  });
});
