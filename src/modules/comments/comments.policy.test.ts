import { describe, expect, it } from "vitest";
import { commentPermissions } from "./comments.policy.js";

const mine = { postedBy: "me" };
const theirs = { postedBy: "someone" };

describe("commentPermissions", () => {
  it.each([
    // scope (view, comment, admin), item, expected (view, edit, reply, delete)
    ["commenter, own", [true, true, false], mine, [true, true, true, true]],
    ["commenter, other's", [true, true, false], theirs, [true, false, true, false]],
    ["admin, other's", [true, true, true], theirs, [true, false, true, true]],
    ["admin, own", [true, true, true], mine, [true, true, true, true]],
    ["reader, own (lost comment access)", [true, false, false], mine, [true, false, false, false]],
    ["reader, other's", [true, false, false], theirs, [true, false, false, false]],
    ["no view", [false, true, true], mine, [false, false, false, false]],
  ] as const)("%s", (_name, [view, comment, admin], item, [v, e, r, d]) => {
    expect(commentPermissions("me", item, { view, comment, admin })).toEqual({ view: v, edit: e, reply: r, delete: d });
  });
});
