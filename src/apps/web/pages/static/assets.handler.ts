/** The renderer's static files (content.css, content.js, KaTeX, mermaid) and the editor's bundle, under fingerprinted prefixes. */
import Type from "typebox";
import { missing } from "../../../../lib/errors.js";
import { assetAt } from "../../web.assets.js";
import { publicHandler } from "../../web.kinds.js";
import { Id } from "../../web.schemas.js";

const schema = { params: Type.Object({ hash: Id, "*": Type.String({ maxLength: 200 }) }) };

export const assetFile = publicHandler(schema, async (request, reply) => {
  const file = await assetAt(request.params.hash, request.params["*"]);
  if (!file) throw missing("No such file: the page that asked for it may be from an older version of Quire; reload it.");
  return reply.header("cache-control", "public, max-age=31536000, immutable").type(file.contentType).send(file.body);
});
