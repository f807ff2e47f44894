/** TypeBox schemas of the change-request pages' addresses and form fields. */
import Type from "typebox";
import { CrParams, Id } from "../../web.schemas.js";

export { CrParams };
export const CommentParams = Type.Object({ ...CrParams.properties, commentId: Id });
export const ReplyParams = Type.Object({ ...CommentParams.properties, replyId: Id });
export const PageParams = Type.Object({ ...CrParams.properties, pageId: Id });
/** A comment's, reply's or description's Markdown. */
export const Body = Type.String({ maxLength: 20_000 });
/** A page's Markdown in the editor. */
export const Markdown = Type.String({ maxLength: 2_000_000 });
/** Adding or removing one's reaction. */
export const ReactBody = Type.Object({ emoji: Type.String({ minLength: 1, maxLength: 50 }), action: Type.Enum(["add", "remove"]) });
/** The notice a page shows after an action, by the `done` query value its redirect carries. */
export const DoneQuery = Type.Optional(Type.String({ maxLength: 40 }));
