import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import { getBlob } from "../../content/store/blobs.queries.js";
import type { Deps } from "../../deps.js";
import { forbidden, notFound } from "../../http/errors.js";
import { verifyDownload } from "./files-urls.model.js";

/** Types a browser may render inline; everything else downloads as an attachment. */
const INLINE_TYPES = /^(image\/(png|jpeg|gif|webp|avif)|application\/pdf|text\/plain|video\/(mp4|webm)|audio\/(mpeg|ogg|wav))$/;

/**
 * Types a page could load as a script or worker from our origin (`<script src="/files/...">` is
 * same-origin, so `script-src 'self'` would admit it). They are sent as opaque bytes: with nosniff
 * the browser refuses to run them, and a download keeps its file name.
 */
const SCRIPT_TYPES =
  /^(text|application)\/(x-)?(javascript|ecmascript|jscript|livescript)\b|^text\/(x-)?(js|ecmascript)\b|^application\/wasm\b|^text\/jsx?\b|^module\b/i;

/** GET /files/{hash}/{name}: the bytes behind a signed `downloadURL`. */
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
        }),
      },
    },
    async (request, reply) => {
      const { hash, name } = request.params;
      const { type, expires, sig } = request.query;
      const verdict = verifyDownload(deps.secret, { blobHash: hash, name, contentType: type }, expires, sig);
      if (verdict === "invalid") throw forbidden("This download link is not valid.");
      if (verdict === "expired") throw forbidden("This download link has expired; read the file again through the API for a fresh link.");
      const bytes = await getBlob(deps.db, hash);
      if (!bytes) throw notFound("This file no longer exists.");
      const inline = INLINE_TYPES.test(type);
      return (
        reply
          .header("content-type", SCRIPT_TYPES.test(type.trim()) ? "application/octet-stream" : type)
          .header("content-length", bytes.length)
          // Uploaded content must never run as our origin's page (SVG and HTML can carry scripts).
          .header("content-security-policy", "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'")
          .header("x-content-type-options", "nosniff")
          .header("content-disposition", `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(name)}`)
          .header("cache-control", `private, max-age=${Math.max(0, expires - Math.floor(Date.now() / 1000))}, immutable`)
          .send(bytes)
      );
    },
  );
};
