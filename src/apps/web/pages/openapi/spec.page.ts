/** An OpenAPI spec of the organization: its source, processing and versions (the API's visibility rules). */
import Type from "typebox";
import { parseJson } from "../../../../lib/json.js";
import { loadSpec } from "../../../../modules/openapi/openapi.loader.js";
import { versionDocumentUrl } from "../../../../modules/openapi/openapi.presenter.js";
import { listVersions } from "../../../../modules/openapi/openapi.queries.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Id } from "../../web.schemas.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { specBody } from "./spec.views.js";

const schema = { params: Type.Object({ org: Id, slug: Type.String({ minLength: 1, maxLength: 200 }) }) };

export const specPage = orgHandler(schema, async (request, reply, ctx) => {
  const { db, urls } = ctx.deps;
  const { spec } = await loadSpec(db, ctx.actor, ctx.org.id, request.params.slug);
  const versions = (await listVersions(db, spec.id, { limit: 100 })).rows.map((v) => ({
    id: v.id,
    createdAt: v.createdAt,
    documentUrl: versionDocumentUrl(urls, spec, v.id),
  }));
  const errors = spec.lastProcessedErrors
    ? parseJson<{ message: string }[]>(spec.lastProcessedErrors, "openapiSpecs.lastProcessedErrors")
    : [];
  return sendOrgPage(reply, ctx, {
    title: spec.slug,
    body: specBody({ spec, errors, versions }),
    crumbs: [orgCrumb(ctx), { label: "OpenAPI specs", href: `${appPath.org(ctx.org.id)}#openapi` }, { label: spec.slug }],
  });
});
