import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { forbidden, notFound } from "../../http/errors.js";
import { errorResponses, UserSchema } from "../../http/schemas.js";
import { presentUser } from "./users.presenter.js";
import { getUserById, shareAnOrganization, updateUser } from "./users.queries.js";
import { UpdateUserBody, UserParams } from "./users.schemas.js";

/** GET /v1/user, GET and PATCH /v1/users/{userId}. */
export const userRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  /** A user is visible to themselves and to people who share an organization with them; else 404. */
  async function loadVisibleUser(actorId: string, userId: string) {
    const user = await getUserById(db, userId);
    if (!user || (user.id !== actorId && !(await shareAnOrganization(db, actorId, user.id)))) {
      throw notFound(`No user with id "${userId}".`);
    }
    return user;
  }

  app.get(
    "/v1/user",
    { schema: { tags: ["users"], operationId: "getAuthenticatedUser", response: { 200: UserSchema, ...errorResponses } } },
    async (request) => presentUser(actorOf(request).user, urls),
  );

  app.get(
    "/v1/users/:userId",
    {
      schema: {
        tags: ["users"],
        operationId: "getUserById",
        params: UserParams,
        response: { 200: UserSchema, ...errorResponses },
      },
    },
    async (request) => {
      return presentUser(await loadVisibleUser(actorOf(request).user.id, request.params.userId), urls);
    },
  );

  app.patch(
    "/v1/users/:userId",
    {
      schema: {
        tags: ["users"],
        operationId: "updateUserById",
        params: UserParams,
        body: UpdateUserBody,
        response: { 200: UserSchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const user = await loadVisibleUser(actor.user.id, request.params.userId);
      if (user.id !== actor.user.id) throw forbidden("You can only update your own profile.");
      const { displayName, photoURL } = request.body;
      await updateUser(db, user.id, {
        ...(displayName !== undefined ? { displayName } : {}),
        ...(photoURL !== undefined ? { photoUrl: photoURL } : {}),
      });
      const updated = await getUserById(db, user.id);
      return presentUser(updated ?? user, urls);
    },
  );
};
