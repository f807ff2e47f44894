/** TypeBox schemas of the app's addresses and forms that several handlers share. */
import Type from "typebox";

/** An id in an address (organizations, spaces, pages, comments ...). */
export const Id = Type.String({ minLength: 1, maxLength: 100 });
export const OrgParams = Type.Object({ org: Id });
export const SpaceParams = Type.Object({ org: Id, space: Id });
/** A change request's address: its space and its number. */
export const CrParams = Type.Object({ org: Id, space: Id, number: Type.String({ pattern: "^[0-9]{1,9}$" }) });
/** The CSRF token every form posts (checked before the handler by @fastify/csrf-protection). */
export const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) };
/** The longest title of a space or collection (the API's SpaceTitle and CollectionTitle). */
export const CONTENT_TITLE_MAX = 50;
export const ContentTitle = Type.String({ maxLength: CONTENT_TITLE_MAX });
