import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import Type from "typebox";
import { isDerivable, MAX_VARIANT_WIDTH } from "../../content/images/widths.js";
import { getBlob } from "../../content/store/blobs.queries.js";
import type { Deps } from "../../deps.js";
import { badRequest, forbidden, notFound } from "../../http/errors.js";
import { verifyDownload } from "./files-urls.model.js";
import { imageAtWidth } from "./image-variants.service.js";

/** Types a browser may render inline; everything else downloads as an attachment. */
const INLINE_TYPES = /^(image\/(png|jpeg|gif|webp|avif)|application\/pdf|text\/plain|video\/(mp4|webm)|audio\/(mpeg|ogg|wav))$/;

/**
 * Types a page could load as a script or worker from our origin (`<script src="/files/...">` is
 * same-origin, so `script-src 'self'` would admit it). They are sent as opaque bytes: with nosniff
 * the browser refuses to run them, and a download keeps its file name.
 */
const SCRIPT_TYPES =
  /^(text|application)\/(x-)?(javascript|ecmascript|jscript|livescript)\b|^text\/(x-)?(js|ecmascript)\b|^application\/wasm\b|^text\/jsx?\b|^module\b/i;

/** The file name a variant is saved under: the source's, its extension that of the variant's type. */
function variantName(name: string, contentType: string): string {
  const extension = contentType === "image/webp" ? ".webp" : "";
  return extension ? `${name.replace(/\.[A-Za-z0-9]{1,5}$/, "")}${extension}` : name;
}

/**
 * GET /files/{hash}/{name}: the bytes behind a signed `downloadURL`. With `w`, an image (PNG, JPEG,
 * GIF, WebP) at about that width in WebP: the narrowest variant at least that wide (the widest
 * made for a wider request). The address is the file's own, under the same signature: whoever may
 * fetch the image may fetch its variants, and nobody else. Variants are made by jobs
 * (image-variants.jobs.ts); a width not made yet is made while the reader waits when an encode
 * slot frees up within a bounded time (image-variants.service.ts), else the image is served as
 * stored and not cached, and the job makes it.
 */
export const fileRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    "/files/:hash/:name",
    {
      config: { public: true },
      schema: {
        hide: true,
        params: Type.Object({ hash: Type.String({ pattern: "^[0-9a-f]{64}$" }), name: Type.String({ minLength: 1, maxLength: 512 }) }),
        querystring: Type.Object({
          type: Type.String({ minLength: 1, maxLength: 255 }),
          expires: Type.Integer({ minimum: 0 }),
          sig: Type.String({ minLength: 1, maxLength: 128 }),
          w: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_VARIANT_WIDTH })),
        }),
      },
    },
    async (request, reply) => {
      const { hash, name } = request.params;
      const { type, expires, sig, w } = request.query;
      const verdict = verifyDownload(deps.secret, { blobHash: hash, name, contentType: type }, expires, sig);
      if (verdict === "invalid") throw forbidden("This download link is not valid.");
      if (verdict === "expired") throw forbidden("This download link has expired; read the file again through the API for a fresh link.");
      const cache = `private, max-age=${Math.max(0, expires - Math.floor(Date.now() / 1000))}, immutable`;
      if (w !== undefined) {
        if (!isDerivable(type)) throw badRequest("Only PNG, JPEG, GIF and WebP images are served at other widths (w).");
        const answer = await imageAtWidth(deps, hash, w, () => sourceBytes(deps, hash));
        if (answer.kind === "variant") return send(reply, answer.bytes, answer.contentType, variantName(name, answer.contentType), cache);
        if (answer.kind === "source-for-now") return send(reply, answer.bytes, type, name, "no-cache");
      }
      return send(reply, await sourceBytes(deps, hash), type, name, cache);
    },
  );
};

async function sourceBytes(deps: Deps, hash: string): Promise<Buffer> {
  const bytes = await getBlob(deps.db, hash);
  if (!bytes) throw notFound("This file no longer exists.");
  return bytes;
}

function send(reply: FastifyReply, bytes: Buffer, type: string, name: string, cache: string) {
  const inline = INLINE_TYPES.test(type);
  return (
    reply
      .header("content-type", SCRIPT_TYPES.test(type.trim()) ? "application/octet-stream" : type)
      .header("content-length", bytes.length)
      // Uploaded content must never run as our origin's page (SVG and HTML can carry scripts).
      .header("content-security-policy", "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'")
      .header("x-content-type-options", "nosniff")
      .header("content-disposition", `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(name)}`)
      .header("cache-control", cache)
      .send(bytes)
  );
}
