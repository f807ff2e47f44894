/**
 * SimpleSAMLphp from Debian's package (/usr/share/simplesamlphp) as a real identity provider for
 * tests: a configuration directory of its own (config, a static users source from the exampleauth
 * module, the hosted IdP with a key made by openssl, and Quire as the remote SP), served by
 * `php -S` on loopback. Nothing here is Quire code: what it sends is what a real IdP sends.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./ports.js";
import { writeSelfSignedCertificate } from "./saml-idp.js";

export const SIMPLESAMLPHP_DIR = "/usr/share/simplesamlphp";

/** Why SimpleSAMLphp cannot run here, or undefined when it can. */
export function simpleSamlPhpMissing(): string | undefined {
  if (!fs.existsSync(path.join(SIMPLESAMLPHP_DIR, "www", "index.php"))) return "Debian's simplesamlphp package is not installed";
  try {
    execFileSync("php", ["--version"], { stdio: "ignore" });
  } catch {
    return "php-cli is not installed";
  }
  return undefined;
}
export interface IdpUser {
  username: string;
  password: string;
  email: string;
  firstName: string;
  lastName: string;
}

export interface SimpleSamlPhp {
  /** The base URL the browser uses. */
  baseUrl: string;
  entityId: string;
  ssoUrl: string;
  /** The IdP's single logout endpoint (HTTP-Redirect); `?ReturnTo=<url>` there starts an IdP-initiated logout. */
  sloUrl: string;
  certificate: string;
  stop(): Promise<void>;
  log(): string;
}

const php = (value: string) => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/**
 * Starts SimpleSAMLphp as an IdP that knows one service provider (`sp.entityId`, `sp.acsUrl`).
 * `host` is the name the browser uses for it (e.g. `localhost`, so that it is another site than
 * Quire on 127.0.0.1).
 */
export async function startSimpleSamlPhp(options: {
  /**
   * Quire as the remote SP; with `encryptionCertificate`, assertions are encrypted to it (and the
   * SP's signed logout messages checked with it, its one certificate); with `sloUrl`, single
   * logout by HTTP-Redirect, every logout message signed both ways.
   */
  sp: { entityId: string; acsUrl: string; encryptionCertificate?: string; sloUrl?: string };
  users: IdpUser[];
  host?: string;
}): Promise<SimpleSamlPhp> {
  const port = await freePort();
  const host = options.host ?? "localhost";
  const baseUrl = `http://${host}:${port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-ssp-"));
  for (const sub of ["config", "metadata", "cert", "log", "data", "tmp", "sessions"]) fs.mkdirSync(path.join(dir, sub));
  writeSelfSignedCertificate(dir, "simplesamlphp.test", "cert/idp.key", "cert/idp.crt");
  const secret = Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  fs.writeFileSync(
    path.join(dir, "config", "config.php"),
    `<?php
$config = [
  'baseurlpath' => ${php(`${baseUrl}/`)},
  'certdir' => ${php(`${dir}/cert/`)},
  'loggingdir' => ${php(`${dir}/log/`)},
  'datadir' => ${php(`${dir}/data/`)},
  'tempdir' => ${php(`${dir}/tmp`)},
  'metadatadir' => ${php(`${dir}/metadata/`)},
  'metadata.sources' => [['type' => 'flatfile']],
  'secretsalt' => ${php(secret)},
  'auth.adminpassword' => ${php(secret)},
  'technicalcontact_name' => 'Quire tests',
  'technicalcontact_email' => 'tests@quire.test',
  'timezone' => 'UTC',
  'enable.saml20-idp' => true,
  'module.enable' => ['exampleauth' => true, 'core' => true, 'saml' => true, 'admin' => true],
  'logging.level' => SimpleSAML\\Logger::DEBUG,
  'logging.handler' => 'file',
  'logging.logfile' => 'simplesamlphp.log',
  'store.type' => 'phpsession',
  'session.phpsession.savepath' => ${php(`${dir}/sessions`)},
  'session.cookie.secure' => false,
  'session.cookie.samesite' => null,
  'language.default' => 'en',
  // ReturnTo of an IdP-initiated logout may be Quire's own page (another host and port).
  'trusted.url.domains' => null,
  'showerrors' => true,
  'errorreporting' => false,
];
`,
  );
  const users = options.users
    .map(
      (u) =>
        `  ${php(`${u.username}:${u.password}`)} => ['email' => [${php(u.email)}], 'first_name' => [${php(u.firstName)}], 'last_name' => [${php(u.lastName)}]],`,
    )
    .join("\n");
  fs.writeFileSync(
    path.join(dir, "config", "authsources.php"),
    `<?php
$config = [
  'admin' => ['core:AdminPassword'],
  'quire-users' => [
    'exampleauth:UserPass',
${users}
  ],
];
`,
  );
  fs.writeFileSync(
    path.join(dir, "metadata", "saml20-idp-hosted.php"),
    `<?php
$metadata['__DYNAMIC:1__'] = [
  'host' => '__DEFAULT__',
  'privatekey' => 'idp.key',
  'certificate' => 'idp.crt',
  'auth' => 'quire-users',
  'signature.algorithm' => 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
];
`,
  );
  fs.writeFileSync(
    path.join(dir, "metadata", "saml20-sp-remote.php"),
    `<?php
$metadata[${php(options.sp.entityId)}] = [
  'AssertionConsumerService' => [['Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', 'Location' => ${php(options.sp.acsUrl)}]],
  'NameIDFormat' => 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'saml20.sign.assertion' => true,
  'saml20.sign.response' => true,
${
  options.sp.encryptionCertificate
    ? `  'assertion.encryption' => true,\n  'certData' => ${php(options.sp.encryptionCertificate.replace(/-----[A-Z ]+-----|\s/g, ""))},\n`
    : ""
}${
  options.sp.sloUrl
    ? `  'SingleLogoutService' => [['Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', 'Location' => ${php(options.sp.sloUrl)}]],
  'sign.logout' => true,
  'validate.logout' => true,
  'validate.authnrequest' => true,
`
    : ""
}  'authproc' => [
    10 => ['class' => 'saml:AttributeNameID', 'attribute' => 'email', 'Format' => 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
  ],
];
`,
  );
  const child: ChildProcess = spawn(
    "php",
    ["-d", `session.save_path=${dir}/sessions`, "-S", `127.0.0.1:${port}`, "-t", path.join(SIMPLESAMLPHP_DIR, "www")],
    {
      env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: path.join(dir, "config") },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/saml2/idp/metadata.php`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`SimpleSAMLphp did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    entityId: `${baseUrl}/saml2/idp/metadata.php`,
    ssoUrl: `${baseUrl}/saml2/idp/SSOService.php`,
    sloUrl: `${baseUrl}/saml2/idp/SingleLogoutService.php`,
    certificate: fs.readFileSync(path.join(dir, "cert", "idp.crt"), "utf8"),
    log: () => {
      const file = path.join(dir, "log", "simplesamlphp.log");
      return `${output}\n${fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""}`;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
