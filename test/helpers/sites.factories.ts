/** Builders for docs sites, through the API as a client would. */
import { expect } from "vitest";
import type { TestContext, TestUser } from "./app.js";

export interface CreatedSite {
  id: string;
  basename: string;
  [key: string]: unknown;
}

export async function createSite(
  ctx: TestContext,
  user: TestUser,
  orgId: string,
  body: Record<string, unknown> = {},
): Promise<CreatedSite> {
  const res = await ctx.as(user).post(`/v1/orgs/${orgId}/sites`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * Publishes a site for readers with visitor tokens: the adaptive content schema `jsonSchema`, the
 * custom backend (readers without a token are sent to a login URL) and publishing. Returns the
 * site's API path and the key that signs visitor tokens.
 */
export async function publishWithVisitorAuth(
  ctx: TestContext,
  user: TestUser,
  orgId: string,
  siteId: string,
  jsonSchema: unknown,
): Promise<{ url: string; key: string }> {
  const url = `/v1/orgs/${orgId}/sites/${siteId}`;
  expect((await ctx.as(user).put(`${url}/adaptive-schema`, { jsonSchema })).status).toBe(200);
  const auth = await ctx.as(user).patch(`${url}/publishing/auth`, { backend: "custom", fallbackURL: "https://login.example.com/docs" });
  expect(auth.status).toBe(200);
  expect((await ctx.as(user).post(`${url}/publish`)).status).toBe(200);
  const key = (await ctx.as(user).get(`${url}/publishing/auth`)).body.privateKey as string;
  return { url, key };
}

/** Adds a section showing `spaceId` to a site; returns the section. */
export async function addSection(
  ctx: TestContext,
  user: TestUser,
  orgId: string,
  siteId: string,
  body: Record<string, unknown>,
): Promise<{ id: string; path: string; siteSpaces: { id: string; path: string }[]; [key: string]: unknown }> {
  const res = await ctx.as(user).post(`/v1/orgs/${orgId}/sites/${siteId}/sections`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export interface StructureItem {
  id: string;
  object: string;
  path: string;
  default: boolean;
  urls: { published?: string };
  siteSpaces: { id: string; path: string; default: boolean; space: { id: string } }[];
  children?: StructureItem[];
}

/** The site's structure as the API shows it. */
export async function structureOf(
  ctx: TestContext,
  user: TestUser,
  orgId: string,
  siteId: string,
): Promise<{ type: "sections" | "siteSpaces"; structure: StructureItem[] }> {
  const res = await ctx.as(user).get(`/v1/orgs/${orgId}/sites/${siteId}/structure`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
