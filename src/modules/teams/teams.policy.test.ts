import { describe, expect, it } from "vitest";
import type { Role } from "../../permissions/roles.js";
import { teamPermissions } from "./teams.policy.js";

const access = (role: Role | null | "none", ownedTeamIds: string[] = []) => ({
  membership: role === "none" ? undefined : { role, sso: false },
  ownedTeamIds,
});

describe("teamPermissions", () => {
  it.each([
    ["an outsider", access("none", ["t1"]), { view: false, admin: false }],
    ["a guest", access(null), { view: false, admin: false }],
    ["a guest who owns the team", access(null, ["t1"]), { view: true, admin: true }],
    ["a reader", access("read"), { view: true, admin: false }],
    ["a reader who owns another team", access("read", ["t2"]), { view: true, admin: false }],
    ["a reader who owns the team", access("read", ["t1"]), { view: true, admin: true }],
    ["an organization admin", access("admin"), { view: true, admin: true }],
  ])("%s", (_who, caller, expected) => {
    expect(teamPermissions(caller, { id: "t1" })).toEqual(expected);
  });
});
