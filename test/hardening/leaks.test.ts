/**
 * Small leaks (issue 14, item 6): request logs never show the signature of a signed download URL
 * nor the token of a PDF link, which grant access for one to two hours. (Joining an organization
 * answers alike for existing and missing ones: src/modules/organizations/organizations.routes.test.ts.)
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putBlob } from "../../src/content/store/blobs.queries.js";
import { redactUrl } from "../../src/http/log-redaction.js";
import { downloadUrl } from "../../src/modules/files/files-urls.model.js";
import { createTestContext, type TestContext } from "../helpers/app.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";

let ctx: TestContext;
const lines: string[] = [];
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  ctx = await createTestContext({ log: pino({ level: "info" }, sink) });
});
afterAll(() => ctx.close());

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe("request logs", () => {
  it("redact the signature of signed download URLs", async () => {
    const { hash } = await putBlob(ctx.db, Buffer.from("secret bytes"));
    const url = new URL(downloadUrl(ctx.urls.base, ctx.deps.secret, { blobHash: hash, name: "a.txt", contentType: "text/plain" }));
    const sig = url.searchParams.get("sig") as string;
    lines.length = 0;
    expect((await ctx.anonymous.get(pathOf(url.toString()))).status).toBe(200);
    const logged = lines.join("\n");
    expect(logged).toContain(`/files/${hash}/a.txt?type=text%2Fplain&expires=${url.searchParams.get("expires")}&sig=[redacted]`);
    expect(logged).not.toContain(sig);
  });

  it("redact the token of PDF links", async () => {
    const { owner, space } = await createOrgWithSpace(ctx);
    const link = await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf`);
    expect(link.status).toBe(200);
    const token = new URL(link.body.url).pathname.split("/")[2] as string;
    const [payload, signature] = token.split(".") as [string, string];
    lines.length = 0;
    const pdf = await ctx.anonymous.get(pathOf(link.body.url));
    expect(pdf.status).toBe(200);
    const logged = lines.join("\n");
    expect(logged).toContain('"url":"/pdf/[redacted]"');
    expect(logged).not.toContain(signature);
    expect(logged).not.toContain(payload);
  });

  it("keep the rest of the URL", () => {
    expect(redactUrl("/v1/spaces/abc?limit=5&Sig=x&SIG=y&token=t&page=2")).toBe(
      "/v1/spaces/abc?limit=5&Sig=[redacted]&SIG=[redacted]&token=[redacted]&page=2",
    );
    expect(redactUrl("/pdf/abc.def/extra?x=1")).toBe("/pdf/[redacted]/extra?x=1");
    expect(redactUrl("/pdf/")).toBe("/pdf/");
    expect(redactUrl("/files/h/n?%73ig=z")).toBe("/files/h/n?%73ig=[redacted]");
  });
});
