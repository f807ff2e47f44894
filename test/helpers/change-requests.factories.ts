/** Change requests through the API, as a client makes them: create, edit content, merge, update. */
import { expect } from "vitest";
import type { TestContext, TestUser } from "./app.js";

export interface CreatedChangeRequest {
  id: string;
  number: number;
  revision: string;
  [key: string]: any;
}

export async function createChangeRequest(
  ctx: TestContext,
  user: TestUser,
  spaceId: string,
  body: Record<string, unknown> = {},
): Promise<CreatedChangeRequest> {
  const res = await ctx.as(user).post(`/v1/spaces/${spaceId}/change-requests`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** POST .../content with compat=false; expects success and returns the body. */
export async function editContent(ctx: TestContext, user: TestUser, spaceId: string, changeRequest: string, changes: unknown[]) {
  const res = await ctx.as(user).post(`/v1/spaces/${spaceId}/change-requests/${changeRequest}/content?compat=false`, { changes });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { changeRequest: CreatedChangeRequest; changes: { object: string; ref?: string; page: any }[]; insertedFiles?: any[] };
}

export async function mergeChangeRequest(ctx: TestContext, user: TestUser, spaceId: string, changeRequest: string) {
  const res = await ctx.as(user).post(`/v1/spaces/${spaceId}/change-requests/${changeRequest}/merge`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { revision: string; result: "merge" | "conflicts" };
}

export async function updateChangeRequest(ctx: TestContext, user: TestUser, spaceId: string, changeRequest: string) {
  const res = await ctx.as(user).post(`/v1/spaces/${spaceId}/change-requests/${changeRequest}/update`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { revision: string; result: "update" | "conflicts" };
}

/** Plain text of each top-level block of a page, read through the API (the primary or a change request). */
export async function pageTexts(ctx: TestContext, user: TestUser, prefix: string, pageId: string): Promise<string[]> {
  const res = await ctx.as(user).get(`${prefix}/content/page/${pageId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const text = (node: any): string => (node.leaves ? node.leaves.map((l: any) => l.text).join("") : (node.nodes ?? []).map(text).join(""));
  return (res.body.document?.nodes ?? []).map(text);
}

/** The block keys of a page's document, top level, in order. */
export async function pageKeys(ctx: TestContext, user: TestUser, prefix: string, pageId: string): Promise<string[]> {
  const res = await ctx.as(user).get(`${prefix}/content/page/${pageId}`);
  return (res.body.document?.nodes ?? []).map((n: any) => n.key);
}
