import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { putBlob } from "../../content/store/blobs.queries.js";
import { DOWNLOAD_URL_TTL_SECONDS, downloadUrl } from "./files-urls.model.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

describe("GET /files/{hash}/{name}", () => {
  it("serves the bytes with the content type to holders of a valid signed URL", async () => {
    const { hash } = await putBlob(ctx.db, png);
    const url = downloadUrl(ctx.urls.base, ctx.deps.secret, { blobHash: hash, name: "logo (1).png", contentType: "image/png" });
    expect(url.startsWith("http://quire.test/files/")).toBe(true);
    const res = await ctx.anonymous.get(pathOf(url));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("image/png");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["content-disposition"]).toBe("inline; filename*=UTF-8''logo%20(1).png");
    expect(res.raw.equals(png)).toBe(true);
  });

  it("refuses tampered, retyped and expired links, and sandboxes active content", async () => {
    const { hash } = await putBlob(ctx.db, Buffer.from("<svg onload=alert(1)></svg>"));
    const target = { blobHash: hash, name: "x.svg", contentType: "image/svg+xml" };
    const url = new URL(downloadUrl(ctx.urls.base, ctx.deps.secret, target));
    const ok = await ctx.anonymous.get(pathOf(url.toString()));
    expect(ok.headers["content-security-policy"]).toMatch(/sandbox/);
    expect(ok.headers["content-disposition"]).toMatch(/^attachment/);

    const retyped = new URL(url);
    retyped.searchParams.set("type", "text/html");
    expect((await ctx.anonymous.get(pathOf(retyped.toString()))).status).toBe(403);
    const tampered = new URL(url);
    tampered.searchParams.set("sig", "A".repeat(43));
    expect((await ctx.anonymous.get(pathOf(tampered.toString()))).status).toBe(403);

    const old = downloadUrl(ctx.urls.base, ctx.deps.secret, target, Date.now() - 3 * DOWNLOAD_URL_TTL_SECONDS * 1000);
    const expired = await ctx.anonymous.get(pathOf(old));
    expect(expired.status).toBe(403);
    expect(expired.body.error.message).toMatch(/expired/);
  });

  it("sends files of a script type as opaque bytes, so no page of this origin can run them", async () => {
    const { hash } = await putBlob(ctx.db, Buffer.from("alert(document.cookie)"));
    for (const contentType of [
      "text/javascript",
      "application/javascript; charset=utf-8",
      "application/x-javascript",
      "text/ecmascript",
      "application/wasm",
      "Text/JavaScript",
    ]) {
      const url = downloadUrl(ctx.urls.base, ctx.deps.secret, { blobHash: hash, name: "x.js", contentType });
      const res = await ctx.anonymous.get(pathOf(url));
      expect(res.status, contentType).toBe(200);
      expect(res.headers["content-type"], contentType).toBe("application/octet-stream");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["content-disposition"]).toBe("attachment; filename*=UTF-8''x.js");
    }
  });

  it("answers 404 for a signed link to bytes that no longer exist, 400 for a malformed one", async () => {
    const url = downloadUrl(ctx.urls.base, ctx.deps.secret, { blobHash: "a".repeat(64), name: "gone.png", contentType: "image/png" });
    expect((await ctx.anonymous.get(pathOf(url))).status).toBe(404);
    expect((await ctx.anonymous.get("/files/not-a-hash/x.png?type=a&expires=1&sig=x")).status).toBe(400);
  });
});
