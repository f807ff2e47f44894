/** The search's address: the words looked for (the API's bound), possibly none yet. */
import Type from "typebox";
import { OrgParams } from "../../web.schemas.js";

export const SearchRequest = {
  params: OrgParams,
  querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 512 })) }),
};
