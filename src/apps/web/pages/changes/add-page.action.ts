/** Adds a page (empty) or a group, under a chosen parent, to the change request through the content operation. */
import Type from "typebox";
import { invalid } from "../../../../lib/errors.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { CrParams } from "./changes.schemas.js";
import { applyChanges, editableHead, pagesPath } from "./changes.steps.js";

const schema = {
  params: CrParams,
  body: Type.Object({
    title: Type.String({ maxLength: 256 }),
    parent: Type.Optional(Type.String({ maxLength: 100 })),
    kind: Type.Optional(Type.Enum(["document", "group"])),
  }),
};

export const addPage = changeRequestHandler(schema, async (request, reply, ctx) => {
  await editableHead(ctx);
  const title = request.body.title.trim();
  const group = request.body.kind === "group";
  if (!title) throw invalid(group ? "A new group needs a title." : "A new page needs a title.");
  const into = request.body.parent || null;
  const outcome = await applyChanges(ctx, [
    group
      ? { operation: "insert_page", kind: "group", title, into }
      : { operation: "insert_page", title, document: { markdown: "" }, into },
  ]);
  const created = outcome.results.find((r) => r.object === "created_page");
  const id = created && typeof created.page === "object" ? created.page.id : undefined;
  return reply.redirect(pagesPath(ctx.loaded, group ? "group-added" : "page-added", id), 303);
});
