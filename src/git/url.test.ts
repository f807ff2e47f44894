import { describe, expect, it } from "vitest";
import { GitError } from "./errors.js";
import { gitConfigArgs, gitEnv } from "./run.js";
import { createRedactor, parseRemoteUrl, redactUrl } from "./url.js";

function refusal(url: string, allowFile = false): string {
  try {
    parseRemoteUrl(url, { allowFile });
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
    ["https://[::1]:8443/r.git", "https://[::1]:8443/r.git"],
  ])("accepts %s", (url, normalized) => {
    expect(parseRemoteUrl(url, { allowFile: false }).url).toBe(normalized);
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

  it("accepts file:// only when allowed, and only for local paths", () => {
    expect(parseRemoteUrl("file:///srv/repos/a%20b.git", { allowFile: true })).toEqual({
      url: "file:///srv/repos/a b.git",
      protocol: "file",
    });
    expect(refusal("file://otherhost/srv/repo.git", true)).toMatch(/names a host/);
    expect(refusal("file:///srv/repo.git", false)).toMatch(/disabled; set QUIRE_GIT_ALLOW_FILE_URLS=true/);
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
    // With credentials no redirect is followed (it would carry the Authorization header elsewhere).
    expect(args).toContain("http.followRedirects=false");
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
