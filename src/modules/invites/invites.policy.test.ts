import { describe, expect, it } from "vitest";
import type { Role } from "../../permissions/roles.js";
import { isInviteRedundant, linkInvitePermissions } from "./invites.policy.js";

const as = (role: Role | null | "none") => ({ membership: role === "none" ? undefined : { role, sso: false } });

describe("isInviteRedundant", () => {
  it.each([
    ["none", "read", false],
    ["none", null, false],
    [null, null, true],
    [null, "read", false],
    ["read", null, true],
    ["read", "read", true],
    ["read", "edit", false],
    ["review", "edit", true],
    ["create", "admin", false],
    ["admin", "admin", true],
  ] as const)("a caller with %s and an invite for %s: %s", (caller, invite, expected) => {
    expect(isInviteRedundant(as(caller), { role: invite })).toBe(expected);
  });
});

describe("linkInvitePermissions", () => {
  it("lets members see that links exist and admins manage them", () => {
    expect(linkInvitePermissions(as("none"))).toEqual({ view: false, admin: false });
    expect(linkInvitePermissions(as(null))).toEqual({ view: true, admin: false });
    expect(linkInvitePermissions(as("create"))).toEqual({ view: true, admin: false });
    expect(linkInvitePermissions(as("admin"))).toEqual({ view: true, admin: true });
  });
});
