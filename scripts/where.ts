/**
 * npm run where -- <operationId | path>: the file and line that registers an API operation, or the
 * route of the web app or of a published site that serves a path.
 *
 *   npm run where -- getSpaceById
 *   npm run where -- /v1/spaces/abc/content/page/xyz      (or /v1/spaces/{spaceId}/..., or GET /v1/...)
 *   npm run where -- /app/spaces/abc
 *   npm run where -- --all                                 (every route)
 */
import { findRoutes, type RouteEntry, routeTable } from "./lib/routes.js";

function show(route: RouteEntry): string {
  const place = route.file ? `${route.file}:${route.line}` : "(registered by a plugin)";
  const via = route.via.length > 0 ? `  (via ${route.via.join(", ")})` : "";
  return `${route.method.padEnd(7)} ${route.url}${route.operationId ? `  [${route.operationId}]` : ""}\n        ${place}${via}`;
}

const query = process.argv.slice(2).join(" ").trim();
if (!query) {
  console.error("Usage: npm run where -- <operationId | path | METHOD path | --all>");
  process.exit(2);
}
const table = await routeTable();
try {
  const found = query === "--all" ? table.routes : findRoutes(table.routes, query);
  if (found.length === 0) {
    const ids = [...new Set(table.routes.map((route) => route.operationId).filter((id): id is string => Boolean(id)))];
    const near = ids.filter((id) => id.toLowerCase().includes(query.toLowerCase())).slice(0, 10);
    console.error(`No operationId or route matches "${query}".${near.length > 0 ? ` Did you mean: ${near.join(", ")}?` : ""}`);
    process.exitCode = 1;
  } else {
    for (const route of found) console.log(show(route));
  }
} finally {
  await table.close();
}
