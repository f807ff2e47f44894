/** The member's own API tokens: the list, and creating one (shown once). */
import type { FastifyReply } from "fastify";
import Type from "typebox";
import { createApiToken, listApiTokens } from "../../../../modules/users/tokens.queries.js";
import { page } from "../../layout.views.js";
import { memberHandler } from "../../web.kinds.js";
import { type MemberContext, sendHtml } from "../../web.steps.js";
import { tokensBody } from "./home.views.js";

async function sendTokens(reply: FastifyReply, ctx: MemberContext, status: number, created?: { token: string; label: string }) {
  const { user } = ctx.signedIn;
  const body = tokensBody(await listApiTokens(ctx.deps.db, user.id), ctx.csrf(), created);
  return sendHtml(reply, status, page("API tokens", body, { user, csrf: ctx.csrf() }));
}

export const tokensPage = memberHandler({}, async (_request, reply, ctx) => sendTokens(reply, ctx, 200));

const CreateForm = Type.Object({ label: Type.Optional(Type.String({ maxLength: 100 })) });

export const createTokenForm = memberHandler({ body: CreateForm }, async (request, reply, ctx) => {
  const label = request.body.label?.trim() ?? "";
  const { token } = await createApiToken(ctx.deps.db, ctx.signedIn.user.id, label || undefined);
  return sendTokens(reply, ctx, 201, { token, label });
});
