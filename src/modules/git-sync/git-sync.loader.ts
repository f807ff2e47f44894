/** Loading a space for a Git import or export with the caller's right to start one (API and web app alike). */
import type { Executor } from "../../db/database.js";
import type { SpaceRow } from "../../db/schema.js";
import type { Actor } from "../../permissions/actor.js";
import { authorize } from "../../permissions/authorize.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";

/** A live space the caller may synchronise with Git: 404 when they cannot see it, 403 when they may not sync it. */
export async function requireSyncableSpace(db: Executor, actor: Actor, spaceId: string): Promise<SpaceRow> {
  const { space, permissions } = await requireLiveSpace(db, actor, spaceId);
  authorize(permissions, "triggerGitSync", {
    notFound: `No space with id "${space.id}".`,
    forbidden:
      space.editMode === "locked"
        ? "The space is locked: unlock it (PATCH editMode=live) before synchronising with Git."
        : "Only members who can edit the space can synchronise it with Git.",
  });
  return space;
}
