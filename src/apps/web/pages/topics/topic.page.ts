/** A topic the conversations' analysis found: its issues, and the pages that answer them. */
import Type from "typebox";
import { missing } from "../../../../lib/errors.js";
import { parseJson } from "../../../../lib/json.js";
import { loadConversations, readableSpaceIds } from "../../../../modules/conversations/conversations.loader.js";
import { getCluster, listIssues } from "../../../../modules/conversations/conversations.queries.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Id } from "../../web.schemas.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { topicBody } from "./topic.views.js";

export const topicPage = orgHandler({ params: Type.Object({ org: Id, topic: Id }) }, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const { org, access } = await loadConversations(db, ctx.actor, ctx.org.id, "view");
  const cluster = await getCluster(db, org.id, request.params.topic);
  if (!cluster) throw missing(`No topic with id "${request.params.topic}" in this organization.`);
  const [issues, readable] = await Promise.all([listIssues(db, org.id, { cluster: cluster.id, limit: 100 }), readableSpaceIds(db, access)]);
  const body = topicBody({
    org: org.id,
    cluster,
    keywords: parseJson<string[]>(cluster.keywords, "conversationClusters.keywords"),
    issues: issues.rows.map((issue) => ({
      ...issue,
      pages: parseJson<{ spaceId: string; pageId: string; title: string }[]>(issue.documentation, "conversationIssues.documentation"),
    })),
    canRead: (spaceId) => readable.has(spaceId),
  });
  return sendOrgPage(reply, ctx, {
    title: cluster.label,
    body,
    crumbs: [orgCrumb(ctx), { label: "Topics", href: `${appPath.org(org.id)}#topics` }, { label: cluster.label }],
  });
});
