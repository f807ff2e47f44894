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
