/**
 * A cookie-keeping client for the web app over app.inject: what a browser does with Set-Cookie
 * (each cookie sent only under its Path), forms (urlencoded) and CSRF tokens read from the page,
 * without following redirects.
 */
import { createLoginLink } from "../../src/apps/web/web.queries.js";
import type { TestContext } from "./app.js";

export interface WebResponse {
  status: number;
  text: string;
  location: string | undefined;
  headers: Record<string, string | string[] | number | undefined>;
  setCookies: string[];
}

/** Whether a cookie scoped to `cookiePath` is sent with a request for `path` (RFC 6265, 5.1.4). */
export function pathMatches(path: string, cookiePath: string): boolean {
  return path === cookiePath || (path.startsWith(cookiePath) && (cookiePath.endsWith("/") || path[cookiePath.length] === "/"));
}

export class WebClient {
  /** Cookies by name (a test may set one: without a Path it is sent everywhere). */
  readonly cookies = new Map<string, string>();
  /** The Path each cookie was set with. */
  readonly paths = new Map<string, string>();
  constructor(private readonly ctx: TestContext) {}

  /** The Cookie header a browser sends with a request for `url`. */
  cookieHeader(url: string): string | undefined {
    const path = new URL(url, "http://quire.test").pathname;
    const sent = [...this.cookies].filter(([name]) => pathMatches(path, this.paths.get(name) ?? "/"));
    if (sent.length === 0) return undefined;
    return sent.map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(
    method: "GET" | "POST" | "PUT",
    url: string,
    form?: Record<string, string>,
    json?: { body: unknown; csrf?: string },
  ): Promise<WebResponse> {
    const headers: Record<string, string> = {};
    const cookie = this.cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    let payload: string | undefined;
    if (form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      payload = new URLSearchParams(form).toString();
    } else if (json) {
      // As a page's script sends it: JSON, with the page's CSRF token in a header.
      headers["content-type"] = "application/json";
      if (json.csrf) headers["x-csrf-token"] = json.csrf;
      payload = JSON.stringify(json.body);
    }
    const res = await this.ctx.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
    const raw = res.headers["set-cookie"];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
    for (const line of setCookies) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired =
        attributes.some(
          (a) => (/^\s*expires=/i.test(a) && Date.parse(a.split("=")[1] ?? "") < Date.now()) || /^\s*max-age=0\s*$/i.test(a),
        ) || value === "";
      const path = attributes.map((a) => /^\s*path=(.*)$/i.exec(a)?.[1]?.trim()).find((p) => p !== undefined) ?? "/";
      if (expired) {
        this.cookies.delete(name);
        this.paths.delete(name);
      } else {
        this.cookies.set(name, value);
        this.paths.set(name, path);
      }
    }
    const location = res.headers.location === undefined ? undefined : String(res.headers.location);
    return { status: res.statusCode, text: res.body, location, headers: res.headers, setCookies };
  }

  get(url: string) {
    return this.request("GET", url);
  }

  post(url: string, form: Record<string, string> = {}) {
    return this.request("POST", url, form);
  }

  /** A page script's JSON request (`csrf`: the token the page carries). */
  sendJson(method: "POST" | "PUT", url: string, body: unknown, csrf?: string) {
    return this.request(method, url, undefined, { body, ...(csrf ? { csrf } : {}) });
  }

  /** A client signed in as `user` with a one-time link, as the operator's `quire users login-link` gives it. */
  static async signedIn(ctx: TestContext, user: { id: string }): Promise<WebClient> {
    const browser = new WebClient(ctx);
    const { token } = await createLoginLink(ctx.db, user.id);
    const form = await browser.get(`/app/login/link/${token}`);
    if (form.status !== 200) throw new Error(`the login link page answered ${form.status}: ${form.text.slice(0, 300)}`);
    const res = await browser.post(`/app/login/link/${token}`, { _csrf: WebClient.csrfOf(form.text) });
    if (res.status !== 303) throw new Error(`signing in with the login link answered ${res.status}: ${res.text.slice(0, 300)}`);
    return browser;
  }

  /** The CSRF token of the first form on a page. */
  static csrfOf(html: string): string {
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!token) throw new Error("no CSRF token on the page");
    return token;
  }
}
