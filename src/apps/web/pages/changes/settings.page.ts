/**
 * A page's settings in the change request (title, slug, emoji, description, hidden, indexing):
 * the form, and saving it through the content operation's update_page; what is wrong is shown in
 * the form, with the text kept.
 */
import Type from "typebox";
import { DomainError } from "../../../../lib/errors.js";
import { changeRequestHandler } from "../../web.kinds.js";
import { PageParams } from "./changes.schemas.js";
import { applyChanges, crPath, editableHead, pagesPath, requireLocation } from "./changes.steps.js";
import { childrenOf } from "./place.model.js";
import { checkSettings, settingsFormFromBody, settingsFormOf } from "./settings.model.js";
import { sendSettingsPage } from "./settings.steps.js";

export const pageSettingsPage = changeRequestHandler({ params: PageParams }, async (request, reply, ctx) => {
  const view = await editableHead(ctx);
  const location = requireLocation(view, ctx, request.params.pageId);
  return sendSettingsPage(reply, ctx, view, location.page.id, settingsFormOf(location.page));
});

const SettingsBody = Type.Object({
  // Room above the API's limits: the form says what is too long, with the text kept.
  title: Type.String({ maxLength: 2048 }),
  slug: Type.String({ maxLength: 1024 }),
  emoji: Type.Optional(Type.String({ maxLength: 400 })),
  description: Type.Optional(Type.String({ maxLength: 8000 })),
  hidden: Type.Optional(Type.Enum(["true"])),
  noIndex: Type.Optional(Type.Enum(["true"])),
  noRobotsIndex: Type.Optional(Type.Enum(["true"])),
});

export const savePageSettings = changeRequestHandler({ params: PageParams, body: SettingsBody }, async (request, reply, ctx) => {
  const view = await editableHead(ctx);
  const { page, parentId } = requireLocation(view, ctx, request.params.pageId);
  const form = settingsFormFromBody(request.body);
  const checked = checkSettings(form, settingsFormOf(page), page, childrenOf(view.content, parentId) ?? []);
  if ("problem" in checked) return sendSettingsPage(reply, ctx, view, page.id, form, checked.problem);
  if (Object.keys(checked.change).length === 0) return reply.redirect(pagesPath(ctx.loaded, "page-unchanged", page.id), 303);
  try {
    await applyChanges(ctx, [{ operation: "update_page", page: page.id, ...checked.change }]);
  } catch (error) {
    // What the content operation refuses (a slug taken meanwhile ...) is shown in the form, with the text kept.
    if (error instanceof DomainError && error.kind === "invalid") {
      const field = /^body\.changes\.0\.(\w+)/.exec(error.message)?.[1];
      const message = error.message.replace(/^body\.changes\.0\.\w+:\s*/, "");
      return sendSettingsPage(reply, ctx, await editableHead(ctx), page.id, form, { ...(field ? { field } : {}), message });
    }
    throw error;
  }
  return reply.redirect(`${crPath(ctx.loaded)}/pages?done=page-saved&page=${encodeURIComponent(page.id)}#tree-${page.id}`, 303);
});
