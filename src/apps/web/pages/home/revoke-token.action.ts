/** Revokes one of the member's own API tokens; another's is a 404, as one that does not exist. */
import Type from "typebox";
import { missing } from "../../../../lib/errors.js";
import { listApiTokens, revokeApiToken } from "../../../../modules/users/tokens.queries.js";
import { memberHandler } from "../../web.kinds.js";

const schema = { params: Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 100 }) }) };

export const revokeToken = memberHandler(schema, async (request, reply, { deps, signedIn }) => {
  const own = (await listApiTokens(deps.db, signedIn.user.id)).find((t) => t.id === request.params.tokenId);
  if (!own) throw missing("You have no API token with this id.");
  await revokeApiToken(deps.db, own.id);
  return reply.redirect("/app/tokens", 303);
});
