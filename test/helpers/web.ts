/**
 * A cookie-keeping client for the web app over app.inject: what a browser does with Set-Cookie,
 * forms (urlencoded) and CSRF tokens read from the page, without following redirects.
 */
import { createLoginLink } from "../../src/modules/web/web.queries.js";
import type { TestContext } from "./app.js";

export interface WebResponse {
  status: number;
  text: string;
  location: string | undefined;
  headers: Record<string, string | string[] | number | undefined>;
  setCookies: string[];
}

export class WebClient {
  readonly cookies = new Map<string, string>();
  constructor(private readonly ctx: TestContext) {}

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(method: "GET" | "POST", url: string, form?: Record<string, string>): Promise<WebResponse> {
    const headers: Record<string, string> = {};
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    let payload: string | undefined;
    if (form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      payload = new URLSearchParams(form).toString();
    }
    const res = await this.ctx.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
    const raw = res.headers["set-cookie"];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
    for (const line of setCookies) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split("=")[1] ?? "") < Date.now()) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
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
