import { describe, expect, it } from "vitest";
import type { Role } from "../../permissions/roles.js";
import { sitePermissions } from "./sites.policy.js";

const access = (role: Role | null | undefined) => ({
  userId: "u1",
  membership: role === undefined ? undefined : { role, sso: false },
});

describe("sitePermissions", () => {
  it("gives nothing to outsiders and guests", () => {
    const none = { view: false, edit: false, publish: false, manageShareLinks: false, admin: false };
    expect(sitePermissions(access(undefined), { createdBy: "u1" })).toEqual(none);
    expect(sitePermissions(access(null), { createdBy: "u1" })).toEqual(none);
  });

  it("lets readers see, creators change and publish, and admins or the creator administer", () => {
    expect(sitePermissions(access("review"), { createdBy: "u1" })).toEqual({
      view: true,
      edit: false,
      publish: false,
      manageShareLinks: false,
      admin: false,
    });
    expect(sitePermissions(access("create"), { createdBy: "other" })).toMatchObject({ edit: true, publish: true, admin: false });
    expect(sitePermissions(access("create"), { createdBy: "u1" })).toMatchObject({ admin: true });
    expect(sitePermissions(access("admin"), { createdBy: null })).toMatchObject({ admin: true, manageShareLinks: true });
  });
});
