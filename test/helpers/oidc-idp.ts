/**
 * A real OpenID provider for the tests: `oidc-provider` (a certified implementation) on loopback,
 * behind a small proxy of ours that can tamper with the token endpoint's ID token (re-signed with
 * the provider's own key, or not signed at all) to play the refused cases. Its keys can be rotated
 * while it runs. Accounts are any login: the login is the email address, its local part the name.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";

export interface SigningKey {
  kid: string;
  privateJwk: JWK;
  privateKey: CryptoKey;
}

export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  return { kid, privateJwk, privateKey: privateKey as CryptoKey };
}

export type IdTokenTamper = (idToken: string, keys: SigningKey[]) => Promise<string>;

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Replaces the provider's keys (a new provider instance with the same issuer; sign-ins under way at the provider are lost). */
  rotateKeys(keys: SigningKey[]): Promise<void>;
  keys(): SigningKey[];
  /** While set, the token endpoint's ID token is replaced by what this returns. */
  tamper: IdTokenTamper | undefined;
  /** Extra claims of every account (merged into what findAccount answers). */
  extraClaims: Record<string, unknown>;
  stop(): Promise<void>;
}

export async function startTestIdp(options: { redirectUris: string[]; keys?: SigningKey[] }): Promise<TestIdp> {
  const clientId = "quire-test";
  const clientSecret = "quire-test-client-secret-0123456789";
  let keys = options.keys ?? [await newSigningKey("key-1")];
  const outer = http.createServer();
  await new Promise<void>((resolve) => outer.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(outer.address() as AddressInfo).port}`;
  const state: { tamper: IdTokenTamper | undefined; extraClaims: Record<string, unknown> } = { tamper: undefined, extraClaims: {} };

  const makeProvider = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: options.redirectUris,
          response_types: ["code"],
          grant_types: ["authorization_code"],
        },
      ],
      jwks: { keys: keys.map((k) => k.privateJwk) as never },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "given_name", "family_name"], groups: ["groups"] },
      scopes: ["openid", "email", "profile", "groups"],
      features: { devInteractions: { enabled: true } },
      pkce: { required: () => true },
      ttl: { Grant: 3600, Session: 3600, AccessToken: 600, IdToken: 600, Interaction: 600, AuthorizationCode: 60 },
      async findAccount(_ctx: unknown, id: string) {
        return {
          accountId: id,
          async claims() {
            const name = id.split("@")[0] ?? id;
            return { sub: id, email: id, email_verified: true, name: name.charAt(0).toUpperCase() + name.slice(1), ...state.extraClaims };
          },
        };
      },
      // No consent screen: the test client is granted what it asks for.
      async loadExistingGrant(ctx: KoaContextWithOIDC) {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope("openid email profile groups");
        await grant.save();
        return grant;
      },
    });
  let provider = makeProvider();
  const inner = http.createServer((req, res) => provider.callback()(req, res));
  await new Promise<void>((resolve) => inner.listen(0, "127.0.0.1", resolve));
  const innerPort = (inner.address() as AddressInfo).port;

  outer.on("request", (req, res) => {
    const forward = http.request(
      { host: "127.0.0.1", port: innerPort, method: req.method, path: req.url, headers: req.headers },
      async (answer) => {
        const tamper = state.tamper;
        if (!(tamper && req.url?.startsWith("/token") && answer.statusCode === 200)) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        for await (const chunk of answer) chunks.push(chunk as Buffer);
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { id_token: string };
        body.id_token = await tamper(body.id_token, keys);
        const text = JSON.stringify(body);
        const headers = { ...answer.headers, "content-length": String(Buffer.byteLength(text)) };
        res.writeHead(200, headers);
        res.end(text);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    get tamper() {
      return state.tamper;
    },
    set tamper(value) {
      state.tamper = value;
    },
    get extraClaims() {
      return state.extraClaims;
    },
    set extraClaims(value) {
      state.extraClaims = value;
    },
    keys: () => keys,
    async rotateKeys(next) {
      keys = next;
      provider = makeProvider();
    },
    async stop() {
      await new Promise((resolve) => outer.close(resolve));
      await new Promise((resolve) => inner.close(resolve));
    },
  };
}

/** Re-signs an ID token's payload, changed by `change`, with a key (the provider's, or another). */
export async function resign(idToken: string, key: SigningKey, change: (payload: Record<string, unknown>) => void): Promise<string> {
  const payload = decodeJwt(idToken) as Record<string, unknown>;
  change(payload);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: decodeProtectedHeader(idToken).typ ?? "JWT" })
    .sign(key.privateKey);
}

/** The same payload, unsigned (`alg: none`). */
export function unsigned(idToken: string): string {
  const payload = decodeJwt(idToken);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(payload)}.`;
}

/** A browser's cookies, enough for one host. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join("; ");
  }
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/**
 * Signs in at the provider from its authorization URL, as a browser would (the development login
 * form), and answers the redirect back to the relying party (with `code` and `state`), not followed.
 */
export async function loginAtIdp(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  for (let step = 0; step < 10; step++) {
    const res = await fetch(url, { redirect: "manual", headers: { cookie: jar.header() } });
    jar.take(res.headers);
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url);
      if (!next.href.startsWith(new URL(authorizationUrl).origin)) return next;
      url = next.href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
    const posted = await fetch(new URL(action, url), {
      method: "POST",
      redirect: "manual",
      headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ prompt: "login", login, password: "any" }).toString(),
    });
    jar.take(posted.headers);
    url = new URL(posted.headers.get("location") ?? "", url).href;
  }
  throw new Error("the provider did not answer after 10 steps");
}
