import { describe, expect, it } from "vitest";
import { DomainError } from "../../lib/errors.js";
import type { Role } from "../../permissions/roles.js";
import { refuseExposure, sitePermissions, widensAudience } from "./sites.policy.js";

const access = (role: Role | null | undefined) => ({
  userId: "u1",
  membership: role === undefined ? undefined : { role, sso: false },
});

describe("sitePermissions", () => {
  it("gives nothing to outsiders and guests", () => {
    const none = { view: false, edit: false, publish: false, manageShareLinks: false, admin: false };
    expect(sitePermissions(access(undefined), { createdBy: "u1" }, [])).toEqual(none);
    expect(sitePermissions(access(null), { createdBy: "u1" }, [])).toEqual(none);
  });

  it("lets readers see, creators change and publish, and admins or the creator administer", () => {
    expect(sitePermissions(access("review"), { createdBy: "u1" }, [])).toEqual({
      view: true,
      edit: false,
      publish: false,
      manageShareLinks: false,
      admin: false,
    });
    expect(sitePermissions(access("create"), { createdBy: "other" }, [])).toMatchObject({ edit: true, publish: true, admin: false });
    expect(sitePermissions(access("create"), { createdBy: "u1" }, [])).toMatchObject({ admin: true });
    expect(sitePermissions(access("admin"), { createdBy: null })).toMatchObject({ admin: true, manageShareLinks: true });
  });

  it("lets a creator publish and manage share links only while they read every space the site shows", () => {
    const blocked = { view: true, edit: true, publish: false, manageShareLinks: false, admin: true };
    expect(sitePermissions(access("create"), { createdBy: "u1" }, ["ss1"])).toEqual(blocked);
    // Not knowing what the caller reads counts as not reading everything.
    expect(sitePermissions(access("create"), { createdBy: "u1" })).toEqual(blocked);
  });
});

describe("widensAudience", () => {
  it("is false only for no change or a narrower visibility", () => {
    expect(widensAudience("public", "public")).toBe(false);
    expect(widensAudience("public", "unlisted")).toBe(false);
    expect(widensAudience("unlisted", "share-link")).toBe(false);
    expect(widensAudience("public", "visitor-auth")).toBe(false);
    expect(widensAudience("unlisted", "public")).toBe(true);
    expect(widensAudience("share-link", "visitor-auth")).toBe(true);
    expect(widensAudience("visitor-auth", "share-link")).toBe(true);
    expect(widensAudience("visitor-auth", "unlisted")).toBe(true);
    expect(widensAudience("something-else", "visitor-auth")).toBe(true);
  });
});

describe("refuseExposure", () => {
  it("passes with nothing unreadable and refuses with a 403 naming the site spaces otherwise", () => {
    expect(() => refuseExposure([], "publish this site")).not.toThrow();
    let error: unknown;
    try {
      refuseExposure(["a", "b"], "publish this site");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe("forbidden");
    expect((error as Error).message).toMatch(
      /^You cannot publish this site: site spaces "a", "b" of this site show spaces you cannot read/,
    );
  });
});
