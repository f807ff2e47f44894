import type { Urls } from "../../http/urls.js";
import type { OpenApiSpec, OpenApiVersion } from "./openapi.queries.js";
import type { OpenAPISpecPermissionsValue, OpenAPISpecResponse, OpenAPISpecVersionResponse } from "./openapi.schemas.js";

const specPath = (spec: Pick<OpenApiSpec, "orgId" | "slug">) => `/orgs/${spec.orgId}/openapi/${encodeURIComponent(spec.slug)}`;

/** Where a version's processed document is served (to anyone when the spec is public). */
export function versionDocumentUrl(urls: Urls, spec: Pick<OpenApiSpec, "orgId" | "slug">, versionId: string): string {
  return urls.api(`${specPath(spec)}/versions/${versionId}/openapi.json`);
}

/** Where the latest processed document is served. */
export function latestDocumentUrl(urls: Urls, spec: Pick<OpenApiSpec, "orgId" | "slug">): string {
  return urls.api(`${specPath(spec)}/openapi.json`);
}

/** The public shape of a spec (`OpenAPISpec`). */
export function presentSpec(spec: OpenApiSpec, permissions: OpenAPISpecPermissionsValue, urls: Urls): OpenAPISpecResponse {
  const errors = spec.lastProcessedErrors ? (JSON.parse(spec.lastProcessedErrors) as { message: string; code?: string }[]) : undefined;
  return {
    object: "openapi-spec",
    id: spec.id,
    createdAt: spec.createdAt,
    updatedAt: spec.updatedAt,
    slug: spec.slug,
    ...(spec.sourceUrl ? { sourceURL: spec.sourceUrl } : {}),
    processingState: spec.processingState as OpenAPISpecResponse["processingState"],
    visibility: spec.visibility as OpenAPISpecResponse["visibility"],
    ...(spec.lastVersionId ? { lastVersion: spec.lastVersionId } : {}),
    ...(spec.lastProcessedAt ? { lastProcessedAt: spec.lastProcessedAt } : {}),
    ...(spec.lastProcessErrorCode
      ? { lastProcessErrorCode: spec.lastProcessErrorCode as OpenAPISpecResponse["lastProcessErrorCode"] }
      : {}),
    ...(errors ? { lastProcessedErrors: errors } : {}),
    permissions,
    urls: {
      location: urls.api(specPath(spec)),
      app: urls.app(`/o/${spec.orgId}/openapi/${encodeURIComponent(spec.slug)}`),
      ...(spec.visibility === "public" && spec.lastVersionId ? { published: latestDocumentUrl(urls, spec) } : {}),
    },
  };
}

/** The public shape of a version (`OpenAPISpecVersion`). */
export function presentVersion(spec: OpenApiSpec, version: OpenApiVersion, urls: Urls): OpenAPISpecVersionResponse {
  return {
    object: "openapi-spec-version",
    id: version.id,
    createdAt: version.createdAt,
    url: versionDocumentUrl(urls, spec, version.id),
    urls: { location: urls.api(`${specPath(spec)}/versions/${version.id}`) },
  };
}

/**
 * `OpenAPISpecContent` as JSON text, built around the stored document without parsing it again
 * (a document can be megabytes). `filesystem` is an object, as the contract declares it: the files
 * by path, each entry as GitBook's renderer lists them (`{"openapi.json": {dir, isEntrypoint,
 * references, filename, specification}}`), so `Object.values(filesystem)` is that list.
 */
export function contentJson(document: string, url: string): string {
  const entry = `{"dir":".","isEntrypoint":true,"references":[],"filename":"openapi.json","specification":${document}}`;
  return `{"filesystem":{"openapi.json":${entry}},"url":${JSON.stringify(url)}}`;
}
