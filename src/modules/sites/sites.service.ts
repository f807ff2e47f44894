/**
 * Multi-step writes of sites: creation (with its first site spaces and its signing key), settings,
 * and the visitor-token signing key. Each takes the transaction from its caller.
 */
import { randomBytes } from "node:crypto";
import type { Executor } from "../../db/database.js";
import type { SiteRow } from "../../db/schema.js";
import { conflicting, invalid, notAllowed } from "../../lib/errors.js";
import { newId, randomBase62 } from "../../lib/ids.js";
import { seal, unseal } from "../../lib/sealed.js";
import { nowIso } from "../../lib/time.js";
import { atLeast } from "../../permissions/roles.js";
import type { SpaceForSite } from "./sites.loader.js";
import {
  basenameTaken,
  getPublishingAuth,
  hasOidcProvider,
  insertSite,
  type PublishingAuthRow,
  putPublishingAuth,
  updateSiteRow,
} from "./sites.queries.js";
import { BASENAME_PATTERN, type CreateSiteValue, type PublishingAuthResponse, type UpdateSiteValue } from "./sites.schemas.js";
import { defaultSectionId, hasSections, keyAfter, type SiteModel, siteSpacesOf, slugify, uniquePath } from "./structure.model.js";
import { insertSiteSpace, updateSectionRow } from "./structure.queries.js";

/** Purpose under which a site's visitor-token signing key is sealed (published sites unseal it to verify tokens). */
export const VISITOR_KEY_PURPOSE = "site-visitor-key";

/**
 * The spaces a request names, checked: each must be a live space of the organization that the
 * caller may read (else a 400 naming the field, the same answer as for an id that does not exist,
 * so that it tells nothing of spaces hidden from them), and the caller needs the edit level on it
 * to show it on a site (403): whoever shows a space to the site's readers must be able to read it.
 */
export function checkSpacesForSite(
  spaces: ReadonlyMap<string, SpaceForSite>,
  ids: readonly string[],
  fieldOf: (index: number) => string,
): SpaceForSite[] {
  return ids.map((id, index) => {
    const entry = spaces.get(id);
    if (!entry || !atLeast(entry.level, "read")) {
      throw invalid(`${fieldOf(index)} names space "${id}", which does not exist in this organization.`);
    }
    if (entry.space.deletedAt) {
      throw invalid(`${fieldOf(index)} names space "${id}", which is deleted; restore it first.`);
    }
    if (!atLeast(entry.level, "edit")) {
      throw notAllowed(`You need at least the edit level on space "${id}" to show it on a site.`);
    }
    return entry;
  });
}

async function freeBasename(db: Executor, base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await basenameTaken(db, candidate))) return candidate;
  }
}

export function newSigningKey(): string {
  return randomBytes(32).toString("base64url");
}

/** Creates a site, its site spaces (in the given order, at the root) and its signing key. */
export async function createSite(
  trx: Executor,
  input: { orgId: string; actorId: string; body: CreateSiteValue; spaces: SpaceForSite[]; secret: string; retry?: boolean },
): Promise<SiteRow> {
  const { body, spaces } = input;
  const firstTitle = spaces[0]?.space.title;
  const title = body.title ?? (firstTitle && Array.from(firstTitle).length >= 2 ? firstTitle : "Docs site");
  const now = nowIso();
  const site: SiteRow = {
    id: newId(),
    orgId: input.orgId,
    type: body.type ?? "basic",
    title,
    // A retry after losing a race for the same basename adds a random suffix.
    basename: await freeBasename(trx, input.retry ? `${slugify(title)}-${randomBase62(6).toLowerCase()}` : slugify(title)),
    visibility: body.visibility ?? "public",
    published: 0,
    adaptiveContent: 0,
    agentsContext: "included",
    proxy: null,
    defaultSiteSectionId: null,
    defaultSiteSpaceId: null,
    customization: null,
    createdBy: input.actorId,
    createdAt: now,
    updatedAt: now,
  };
  await insertSite(trx, site);
  const taken = new Set<string>();
  const siblings: { id: string; position: string }[] = [];
  for (const { space } of spaces) {
    const path = uniquePath(slugify(space.title), taken);
    taken.add(path);
    const row = { id: newId(), siteId: site.id, sectionId: null, spaceId: space.id, path, condition: null, position: keyAfter(siblings) };
    siblings.push(row);
    await insertSiteSpace(trx, { ...row, customization: null, createdAt: now, updatedAt: now });
  }
  await putPublishingAuth(trx, {
    siteId: site.id,
    backend: "custom",
    privateKeySealed: JSON.stringify(seal(input.secret, VISITOR_KEY_PURPOSE, newSigningKey())),
    fallbackUrl: null,
    oidcProviderId: null,
    updatedAt: now,
  });
  return site;
}

/** Applies a site PATCH: every field is checked first, then written at once (nothing on a 4xx). */
export async function updateSite(trx: Executor, input: { model: SiteModel; body: UpdateSiteValue }): Promise<void> {
  const { model, body } = input;
  const { site } = model;
  const changes: Parameters<typeof updateSiteRow>[2] = {};
  if (body.title !== undefined) changes.title = body.title;
  if (body.visibility !== undefined) changes.visibility = body.visibility;
  if (body.agentsContext !== undefined) changes.agentsContext = body.agentsContext;
  if (body.adaptiveContent !== undefined) changes.adaptiveContent = body.adaptiveContent.enabled ? 1 : 0;
  if (body.proxy !== undefined) changes.proxy = body.proxy;
  if (body.basename !== undefined && body.basename !== site.basename) {
    if (!BASENAME_PATTERN.test(body.basename)) {
      throw invalid(`body.basename "${body.basename}" is not valid: use lower-case letters, digits and single hyphens (e.g. "api-docs").`);
    }
    if (await basenameTaken(trx, body.basename, site.id)) {
      throw conflicting(`body.basename "${body.basename}" is already used by another site on this Quire; choose another.`);
    }
    changes.basename = body.basename;
  }
  if (body.defaultSiteSection !== undefined) {
    if (!model.sections.some((s) => s.id === body.defaultSiteSection)) {
      throw invalid(`body.defaultSiteSection names section "${body.defaultSiteSection}", which is not a section of this site.`);
    }
    changes.defaultSiteSectionId = body.defaultSiteSection;
  }
  let sectionDefault: { sectionId: string; siteSpaceId: string } | undefined;
  if (body.defaultSiteSpace !== undefined) {
    const id = body.defaultSiteSpace;
    if (!hasSections(model)) {
      if (!siteSpacesOf(model, null).some((s) => s.id === id && !s.hidden)) {
        throw invalid(`body.defaultSiteSpace names site space "${id}", which is not a site space of this site.`);
      }
      changes.defaultSiteSpaceId = id;
    } else {
      const sectionId = changes.defaultSiteSectionId ?? defaultSectionId(model);
      if (!sectionId || !siteSpacesOf(model, sectionId).some((s) => s.id === id && !s.hidden)) {
        throw invalid(
          `body.defaultSiteSpace names site space "${id}", which is not in the site's default section${sectionId ? ` "${sectionId}"` : ""}.`,
        );
      }
      sectionDefault = { sectionId, siteSpaceId: id };
    }
  }
  if (Object.keys(changes).length > 0) await updateSiteRow(trx, site.id, changes);
  if (sectionDefault) {
    await updateSectionRow(trx, sectionDefault.sectionId, { defaultSiteSpaceId: sectionDefault.siteSpaceId });
  }
}

// Visitor authentication.

export function presentPublishingAuth(row: PublishingAuthRow, secret: string): PublishingAuthResponse {
  const privateKey = unseal(secret, VISITOR_KEY_PURPOSE, JSON.parse(row.privateKeySealed));
  return {
    object: "publishing-auth",
    backend: row.backend as PublishingAuthResponse["backend"],
    privateKey,
    ...(row.fallbackUrl ? { fallbackURL: row.fallbackUrl } : {}),
    ...(row.oidcProviderId ? { oidcProvider: row.oidcProviderId } : {}),
  };
}

/** The site's signing key, made when missing (a site created before it had one). */
export async function ensurePublishingAuth(trx: Executor, siteId: string, secret: string): Promise<PublishingAuthRow> {
  const existing = await getPublishingAuth(trx, siteId);
  if (existing) return existing;
  const row: PublishingAuthRow = {
    siteId,
    backend: "custom",
    privateKeySealed: JSON.stringify(seal(secret, VISITOR_KEY_PURPOSE, newSigningKey())),
    fallbackUrl: null,
    oidcProviderId: null,
    updatedAt: nowIso(),
  };
  await putPublishingAuth(trx, row);
  return row;
}

export async function updatePublishingAuth(
  trx: Executor,
  input: {
    siteId: string;
    orgId?: string;
    secret: string;
    backend: string;
    fallbackURL?: string | null | undefined;
    oidcProvider?: string | null | undefined;
    regenerate?: boolean;
  },
): Promise<PublishingAuthRow> {
  if (typeof input.oidcProvider === "string" && !(input.orgId && (await hasOidcProvider(trx, input.orgId, input.oidcProvider)))) {
    throw invalid(`body.oidcProvider names "${input.oidcProvider}", which is not an OpenID Connect provider of this organization.`);
  }
  if (input.backend === "integration") {
    throw invalid(
      'body.backend "integration" is not available: Quire has no integrations. Use "custom" and sign visitor tokens with privateKey.',
    );
  }
  const current = await ensurePublishingAuth(trx, input.siteId, input.secret);
  const row: PublishingAuthRow = {
    ...current,
    backend: input.backend,
    ...(input.fallbackURL !== undefined ? { fallbackUrl: input.fallbackURL } : {}),
    ...(input.oidcProvider !== undefined ? { oidcProviderId: input.oidcProvider } : {}),
    ...(input.regenerate ? { privateKeySealed: JSON.stringify(seal(input.secret, VISITOR_KEY_PURPOSE, newSigningKey())) } : {}),
    updatedAt: nowIso(),
  };
  await putPublishingAuth(trx, row);
  return row;
}
