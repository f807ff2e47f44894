import { describe, expect, it } from "vitest";
import { GitError } from "./errors.js";
import { gitConfigArgs, gitEnv } from "./run.js";
import { createRedactor, parseRemoteUrl, redactUrl, type UrlPolicy } from "./url.js";

function refusal(url: string, allowFile = false, policy: Omit<UrlPolicy, "allowFile"> = { fileRoot: "/srv/repos" }): string {
  try {
    parseRemoteUrl(url, { allowFile, ...policy });
  } catch (error) {
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).code).toBe("url_refused");
    return (error as GitError).message;
  }
  throw new Error(`accepted ${url}`);
}

describe("remote URL policy", () => {
  it.each([
    ["https://github.com/org/repo.git", "https://github.com/org/repo.git"],
    ["http://git.internal:8080/repo", "http://git.internal:8080/repo"],
    ["HTTPS://Example.COM/a/b.git#frag", "https://example.com/a/b.git"],
    ["https://8.8.8.8/r.git", "https://8.8.8.8/r.git"],
    ["https://[2001:4860:4860::8888]/r.git", "https://[2001:4860:4860::8888]/r.git"],
  ])("accepts %s", (url, normalized) => {
    expect(parseRemoteUrl(url, { allowFile: false }).url).toBe(normalized);
  });

  it.each([
    "http://127.0.0.1:8080/repo.git",
    "http://[::1]/repo.git",
    "http://[::7f00:1]/repo.git",
    "http://[::ffff:127.0.0.1]/repo.git",
    "http://[::127.0.0.1]/repo.git",
    "http://[64:ff9b::7f00:1]/repo.git",
    "http://[2002:7f00:1::]/repo.git",
    "http://2130706433/repo.git",
    "http://0177.0.0.1/repo.git",
    "http://0x7f.1/repo.git",
    "http://0.0.0.0/repo.git",
    "http://169.254.169.254/latest/meta-data",
    "http://[fd00::1]/repo.git",
    "https://user:s3cr3t@10.1.2.3/repo.git",
  ])("refuses by policy the address in %s (any spelling of it)", (url) => {
    const message = refusal(url);
    expect(message).toMatch(/is refused by policy: .* is not a public address\. Quire connects only to public addresses/);
    expect(message).not.toContain("s3cr3t");
  });

  it("accepts the addresses of the networks the operator allowed, and only those", () => {
    const policy = { allowFile: false, allowNetworks: ["127.0.0.0/8", "::1/128"] };
    expect(parseRemoteUrl("http://127.0.0.1:8080/r.git", policy).url).toBe("http://127.0.0.1:8080/r.git");
    expect(parseRemoteUrl("https://[::1]:8443/r.git", policy).url).toBe("https://[::1]:8443/r.git");
    expect(parseRemoteUrl("http://2130706433/r.git", policy).url).toBe("http://127.0.0.1/r.git");
    expect(refusal("http://169.254.169.254/r.git", false, policy)).toMatch(/refused by policy: 169\.254\.169\.254/);
    expect(refusal("http://[64:ff9b::7f00:1]/r.git", false, policy)).toMatch(/refused by policy/);
  });

  it.each([
    ["ssh://git@github.com/org/repo.git", /scheme "ssh:" is not allowed/],
    ["git://github.com/org/repo.git", /scheme "git:" is not allowed/],
    ["ftp://host/repo.git", /scheme "ftp:" is not allowed/],
    ["git@github.com:org/repo.git", /scp-like/],
    ["github.com:org/repo.git", /scheme "github.com:" is not allowed/],
    ["ext::sh -c touch% /tmp/pwned", /whitespace|transport helper/],
    ["ext::sh", /transport helper/],
    ["fd::3", /transport helper/],
    ["/srv/repos/x.git", /local paths/],
    ["./x.git", /local paths/],
    ["../x.git", /local paths/],
    ["-uhttps://evil/", /must not start with "-"/],
    ["--upload-pack=touch /tmp/x", /must not start with "-"/],
    ["https://host/repo\n.git", /control characters/],
    ["https://host/repo .git", /whitespace/],
    ["", /empty/],
    ["file:///srv/repo.git", /QUIRE_GIT_ALLOW_FILE_URLS=true/],
  ])("refuses %s", (url, message) => {
    expect(refusal(url)).toMatch(message);
  });

  it("accepts file:// only when allowed, only for local paths, and only under the root", () => {
    expect(parseRemoteUrl("file:///srv/repos/a%20b.git", { allowFile: true, fileRoot: "/srv/repos" })).toEqual({
      url: "file:///srv/repos/a b.git",
      protocol: "file",
    });
    expect(parseRemoteUrl("file:///srv/repos/team/../x.git", { allowFile: true, fileRoot: "/srv/repos/" }).url).toBe(
      "file:///srv/repos/x.git",
    );
    expect(refusal("file://otherhost/srv/repos/repo.git", true)).toMatch(/names a host/);
    expect(refusal("file:///srv/repos/repo.git", false)).toMatch(/disabled; set QUIRE_GIT_ALLOW_FILE_URLS=true/);
    expect(refusal("file:///srv/repos/repo.git", true, {})).toMatch(/only under a directory the operator sets \(QUIRE_GIT_FILE_ROOT\)/);
    for (const url of [
      "file:///etc",
      "file:///srv/repos-other/x.git",
      "file:///srv",
      "file:///srv/repos/..%2F..%2Fetc",
      "file:///srv/repos/%2e%2e/%2e%2e/etc",
      "file:///srv/repos/x/..%2f..%2f..%2fetc",
    ]) {
      expect(refusal(url, true), url).toMatch(/is outside the directory file:\/\/ remotes must be in \(QUIRE_GIT_FILE_ROOT\)/);
    }
  });

  it("splits credentials off the URL, percent-decoded", () => {
    const remote = parseRemoteUrl("https://user%40corp:p%3Ass%2Fw@host.example/org/repo.git", { allowFile: false });
    expect(remote.url).toBe("https://host.example/org/repo.git");
    expect(remote.credentials).toEqual({ username: "user@corp", password: "p:ss/w" });
  });

  it("never echoes credentials in a refusal message", () => {
    const message = refusal("ssh://alice:s3cretpw@host/repo.git");
    expect(message).not.toContain("s3cretpw");
    expect(message).not.toContain("alice");
  });
});

describe("redaction", () => {
  it("redactUrl removes userinfo from URLs and from unparseable text", () => {
    expect(redactUrl("https://alice:tok123@host/r.git")).toBe("https://***@host/r.git");
    expect(redactUrl("https://ghp_abcdef@github.com/o/r")).toBe("https://***@github.com/o/r");
    expect(redactUrl("https://host/r.git")).toBe("https://host/r.git");
    expect(redactUrl("not a url https://bob:pw@x/y and more")).toBe("not a url https://***@x/y and more");
  });

  it("createRedactor removes passwords, long usernames and the basic-auth token in every form", () => {
    const redact = createRedactor({ username: "deploy-bot", password: "p@ss word" });
    const basic = Buffer.from("deploy-bot:p@ss word").toString("base64");
    const text = `fatal: p@ss word / p%40ss%20word / deploy-bot / ${basic} / https://x:y@h/r`;
    const out = redact(text);
    for (const secret of ["p@ss word", "p%40ss%20word", "deploy-bot", basic, "x:y@"]) expect(out).not.toContain(secret);
  });
});

describe("git environment", () => {
  it("passes credentials as config through the environment, never as arguments", () => {
    const remote = parseRemoteUrl("https://alice:tok-XYZ@host/r.git", { allowFile: false });
    const env = gitEnv({ home: "/tmp/h", remote });
    const args = gitConfigArgs(remote);
    expect(args.join(" ")).not.toContain("tok-XYZ");
    expect(env.GIT_CONFIG_KEY_0).toBe("http.extraHeader");
    expect(env.GIT_CONFIG_VALUE_0).toBe(`Authorization: Basic ${Buffer.from("alice:tok-XYZ").toString("base64")}`);
    expect(env).toMatchObject({
      HOME: "/tmp/h",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_TERMINAL_PROMPT: "0",
      GIT_ALLOW_PROTOCOL: "http:https",
    });
    // No redirect is followed (git would connect to an address nobody checked).
    expect(args).toContain("http.followRedirects=false");
    expect(gitConfigArgs(parseRemoteUrl("https://host/r.git", { allowFile: false }))).toContain("http.followRedirects=false");
    // The checked addresses pin git's connections (address.ts).
    expect(gitConfigArgs(remote, ["host:443:[2001:db8::1],192.0.2.7"]).slice(-2)).toEqual([
      "-c",
      "http.curloptResolve=host:443:[2001:db8::1],192.0.2.7",
    ]);
    expect(args).toContain("core.hooksPath=/dev/null");
    expect(args).toContain("protocol.allow=never");
  });

  it("does not inherit GIT_* variables of the server process", () => {
    process.env.GIT_SSH_COMMAND = "touch /tmp/should-not-run";
    process.env.GIT_DIR = "/somewhere";
    try {
      const env = gitEnv({ home: "/tmp/h" });
      expect(env.GIT_SSH_COMMAND).toBeUndefined();
      expect(env.GIT_DIR).toBeUndefined();
      expect(env.GIT_ALLOW_PROTOCOL).toBe("http:https");
    } finally {
      delete process.env.GIT_SSH_COMMAND;
      delete process.env.GIT_DIR;
    }
  });
});
