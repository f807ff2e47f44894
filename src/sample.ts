/**
 * The sample space and site of a first start: a "getting started" space showing every kind of
 * block, published as a site, so that `npm start` on an empty database shows a working docs site.
 *
 * It is made through the server's own API (in-process requests with the owner's token), as a
 * script of the owner would: the same validation, permissions and content operations, nothing
 * written around them. The pages are GitBook Markdown in `sample/getting-started/`; `pages.json`
 * gives their order, titles and nesting.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";

const SAMPLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../sample/getting-started");

interface SamplePlan {
  space: string;
  site: string;
  pages: { ref: string; title: string; file: string; into?: string }[];
}

export interface SampleSite {
  spaceId: string;
  siteId: string;
  /** The published site's address. */
  siteUrl: string;
}

class SampleError extends Error {}

/**
 * The sample's pages as the content operation's insert_page changes (their Markdown read from
 * disk): the first start's sample space, and the "Getting started" template of a new space.
 */
export function samplePageChanges(): { plan: SamplePlan; changes: Array<Record<string, unknown>> } {
  const plan = JSON.parse(readFileSync(path.join(SAMPLE_DIR, "pages.json"), "utf8")) as SamplePlan;
  const changes = plan.pages.map((page) => ({
    operation: "insert_page",
    ref: page.ref,
    title: page.title,
    ...(page.into ? { into: page.into } : {}),
    document: { markdown: readFileSync(path.join(SAMPLE_DIR, page.file), "utf8") },
  }));
  return { plan, changes };
}

/** Creates the sample space in `orgId`, merges its pages and publishes it as a site. */
export async function createSampleSite(app: FastifyInstance, input: { token: string; orgId: string }): Promise<SampleSite> {
  const { plan, changes } = samplePageChanges();
  const call = async (method: "GET" | "POST", url: string, payload?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${input.token}` },
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });
    if (res.statusCode >= 300) throw new SampleError(`${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    return res.json() as Record<string, unknown>;
  };

  const space = await call("POST", `/v1/orgs/${input.orgId}/spaces`, { title: plan.space, emoji: "1f44b" });
  const spaceId = String(space.id);
  const cr = await call("POST", `/v1/spaces/${spaceId}/change-requests`, { subject: "The sample pages" });
  const crPath = `/v1/spaces/${spaceId}/change-requests/${String(cr.id)}`;
  await call("POST", `${crPath}/content`, { changes });
  await call("POST", `${crPath}/merge`);

  const site = await call("POST", `/v1/orgs/${input.orgId}/sites`, { title: plan.site, spaces: [spaceId] });
  const siteId = String(site.id);
  const published = await call("POST", `/v1/orgs/${input.orgId}/sites/${siteId}/publish`);
  const urls = published.urls as { published?: string } | undefined;
  if (!urls?.published) throw new SampleError("the published site has no address");
  return { spaceId, siteId, siteUrl: urls.published };
}
