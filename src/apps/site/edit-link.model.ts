/**
 * "Edit on GitHub" / "Edit on GitLab": the address of a page's file in the repository its space is
 * synchronised with (the Git sync's remote, branch, and the directory its pages are in). Only for
 * pages that came from Git, remotes over http(s) on a host known to be GitHub or GitLab, and a
 * branch (a tag or a commit cannot be edited); the remote's user name and password, if any were
 * left, are never part of the address.
 */
import { parseJsonOrNull } from "../../lib/json.js";
import type { GitSyncStateValue } from "../../modules/spaces/spaces.schemas.js";
import type { VariantView } from "./site-view.model.js";

export interface EditLink {
  href: string;
  provider: "GitHub" | "GitLab";
}

/** The repository part of edit addresses of one Git sync state: `<repo>/edit/<branch>/<dir>/` (GitHub), `<repo>/-/edit/<branch>/<dir>/` (GitLab). */
interface EditBase {
  prefix: string;
  provider: EditLink["provider"];
}

const encodePath = (path: string) =>
  path
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .map(encodeURIComponent)
    .join("/");

function providerOf(state: GitSyncStateValue, host: string): EditLink["provider"] | undefined {
  if (state.installationProvider === "github" || state.installationProvider === "github-legacy") return "GitHub";
  if (state.installationProvider === "gitlab") return "GitLab";
  const name = host.toLowerCase();
  if (name === "github.com" || name.split(".").includes("github")) return "GitHub";
  if (name === "gitlab.com" || name.split(".").includes("gitlab")) return "GitLab";
  return undefined;
}

export function editBaseOf(state: GitSyncStateValue | null): EditBase | undefined {
  const remote = state?.remote;
  const ref = state?.ref?.trim();
  if (!state || !remote || !ref) return undefined;
  let url: URL;
  try {
    url = new URL(remote);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const provider = providerOf(state, url.hostname);
  if (!provider) return undefined;
  const branch = ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
  if (branch === "" || branch.startsWith("refs/") || /^[0-9a-f]{40}$/i.test(branch)) return undefined;
  const repo = encodePath(url.pathname.replace(/\/+$/, "").replace(/\.git$/, ""));
  if (!repo) return undefined;
  const directory = encodePath(state.contentRoot ?? state.projectDirectory ?? "");
  // `origin` never holds the user name or password.
  const edit = provider === "GitHub" ? "edit" : "-/edit";
  return { prefix: `${url.origin}/${repo}/${edit}/${encodePath(branch)}/${directory ? `${directory}/` : ""}`, provider };
}

/** Edit bases by variant, computed once per view of the site. */
const bases = new WeakMap<VariantView, EditBase | null>();

/** The edit link of a page of a variant, when it came from Git and its space syncs with GitHub or GitLab over http(s). */
export function editLinkOf(variant: VariantView, pageId: string): EditLink | undefined {
  const path = variant.pages.get(pageId)?.page.git?.path;
  if (!path) return undefined;
  let base = bases.get(variant);
  if (base === undefined) {
    base = editBaseOf(parseJsonOrNull<GitSyncStateValue>(variant.siteSpace.space.gitSync, "spaces.git_sync")) ?? null;
    bases.set(variant, base);
  }
  const file = encodePath(path);
  return base && file ? { href: `${base.prefix}${file}`, provider: base.provider } : undefined;
}
