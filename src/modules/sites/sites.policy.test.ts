import { describe, expect, it } from "vitest";
import { DomainError } from "../../lib/errors.js";
import type { Role } from "../../permissions/roles.js";
import { refuseExposure, sitePermissions, widensAudience } from "./sites.policy.js";

const access = (role: Role | null | undefined, grants: Record<string, Role> = {}) => ({
  userId: "u1",
  membership: role === undefined ? undefined : { role, sso: false },
  grants: new Map(Object.entries(grants)),
});

describe("sitePermissions", () => {
  it("gives nothing to outsiders and guests", () => {
    const none = { view: false, edit: false, publish: false, manageShareLinks: false, admin: false };
    expect(sitePermissions(access(undefined), { id: "s1", createdBy: "u1" }, [])).toEqual(none);
    expect(sitePermissions(access(null), { id: "s1", createdBy: "u1" }, [])).toEqual(none);
  });

  it("lets readers see, creators change and publish, and admins or the creator administer", () => {
    expect(sitePermissions(access("review"), { id: "s1", createdBy: "u1" }, [])).toEqual({
      view: true,
      edit: false,
      publish: false,
      manageShareLinks: false,
      admin: false,
    });
    expect(sitePermissions(access("create"), { id: "s1", createdBy: "other" }, [])).toMatchObject({
      edit: true,
      publish: true,
      admin: false,
    });
    expect(sitePermissions(access("create"), { id: "s1", createdBy: "u1" }, [])).toMatchObject({ admin: true });
    expect(sitePermissions(access("admin"), { id: "s1", createdBy: null })).toMatchObject({ admin: true, manageShareLinks: true });
  });

  it("lets a creator publish and manage share links only while they read every space the site shows", () => {
    const blocked = { view: true, edit: true, publish: false, manageShareLinks: false, admin: true };
    expect(sitePermissions(access("create"), { id: "s1", createdBy: "u1" }, ["ss1"])).toEqual(blocked);
    // Not knowing what the caller reads counts as not reading everything.
    expect(sitePermissions(access("create"), { id: "s1", createdBy: "u1" })).toEqual(blocked);
  });
});

describe("sitePermissions with site grants", () => {
  it("raises a member's or a guest's level on that site only, never lowers one", () => {
    expect(sitePermissions(access("read", { s1: "edit" }), { id: "s1", createdBy: null }, [])).toEqual({
      view: true,
      edit: true,
      publish: true,
      manageShareLinks: true,
      admin: false,
    });
    expect(sitePermissions(access("read", { s1: "edit" }), { id: "s2", createdBy: null }, []).edit).toBe(false);
    expect(sitePermissions(access(null, { s1: "read" }), { id: "s1", createdBy: null }, [])).toMatchObject({ view: true, edit: false });
    expect(sitePermissions(access("comment", { s1: "admin" }), { id: "s1", createdBy: null }, ["ss1"])).toMatchObject({
      admin: true,
      publish: false,
    });
    expect(sitePermissions(access("create", { s1: "read" }), { id: "s1", createdBy: null }, []).edit).toBe(true);
    // A grant to someone who is no longer a member gives nothing.
    expect(sitePermissions(access(undefined, { s1: "admin" }), { id: "s1", createdBy: null }, []).view).toBe(false);
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
