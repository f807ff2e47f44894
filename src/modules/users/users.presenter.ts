import type { UserRow } from "../../db/schema.js";
import type { UserResponse } from "../../http/schemas.js";
import type { Urls } from "../../http/urls.js";

/** The public shape of a user (`User`). */
export function presentUser(user: UserRow, urls: Urls): UserResponse {
  return {
    object: "user",
    id: user.id,
    displayName: user.displayName,
    email: user.email,
    ...(user.photoUrl ? { photoURL: user.photoUrl } : {}),
    urls: { location: urls.api(`/users/${user.id}`) },
  };
}

/**
 * A user referred to by id (a creator, a reviewer): the user when the row was found, else a
 * placeholder, so that a missing account never breaks the object that mentions it.
 */
export function presentUserOrPlaceholder(user: UserRow | undefined, id: string, urls: Urls): UserResponse {
  if (user) return presentUser(user, urls);
  return { object: "user", id, displayName: "Deleted user", urls: { location: urls.api(`/users/${id}`) } };
}
