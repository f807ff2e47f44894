/**
 * The `quire` command line: serve, worker, migrate, init, users, tokens, orgs, backup, restore.
 * JSON outputs (`--json`) are relied on by tooling outside this repository: keep them stable.
 */
import path from "node:path";
import { Command, CommanderError } from "commander";
import type { FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import { buildApp, jobDefinitions, periodicJobs, wireContentHooks } from "./app.js";
import { createLoginLink } from "./apps/web/web.queries.js";
import { BackupError, backupSqlite, POSTGRES_BACKUP_HELP, restoreSqlite } from "./backup.js";
import {
  bootstrapIfEmpty,
  commandPublicUrl,
  ensureUser,
  type FirstStart,
  initOrganization,
  loadInstanceSecret,
  recordPublicUrl,
} from "./bootstrap.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { AuditScope, flushAudit, inAuditScope, recordAudit } from "./db/audit.js";
import { type DatabaseHandle, openDatabase, openToOthers } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { Urls } from "./http/urls.js";
import { Worker } from "./jobs/worker.js";
import { verifyAddressByOperator } from "./modules/invites/invites.service.js";
import { getOrganization } from "./modules/organizations/organizations.queries.js";
import { createOrganization } from "./modules/organizations/organizations.service.js";
import { insertScimToken, listScimTokens, revokeScimToken } from "./modules/scim/scim.queries.js";
import { createApiToken, revokeApiToken } from "./modules/users/tokens.queries.js";
import { getUserByEmail, getUserById, updateUser } from "./modules/users/users.queries.js";
import { createSampleSite } from "./sample.js";
import { closeWorkerThreads, configureWorkerHeap, configureWorkerThreads } from "./workers/pool.js";

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

export function createLogger(config: Pick<Config, "logLevel">): Logger {
  return pino({
    level: config.logLevel,
    // Tokens and credentials never reach the log, whatever object carries them.
    redact: {
      paths: ["req.headers.authorization", "req.headers.cookie", "*.token", "*.password", "*.authorization"],
      censor: "[redacted]",
    },
  });
}

function openFromConfig(config: Config, log?: Logger): DatabaseHandle {
  const sqlitePath = path.join(config.dataDir, "quire.db");
  if (log && !config.databaseUrl && openToOthers(sqlitePath)) {
    log.warn(
      { file: sqlitePath },
      "the database file may be read by other users of this machine, and it holds the instance key and every session: chmod 600 it",
    );
  }
  return openDatabase({
    databaseUrl: config.databaseUrl,
    sqlitePath,
    ...(log
      ? {
          onChangeFeedError: (error: Error) =>
            log.warn({ err: error }, "the database change feed dropped; reconnecting (reads are not kept meanwhile)"),
        }
      : {}),
  });
}

/** Opens the configured database, migrated to the latest schema, for the duration of `fn`. */
async function withDatabase<T>(fn: (handle: DatabaseHandle, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const handle = openFromConfig(config);
  try {
    await migrateToLatest(handle.db);
    // What a command changes is in the audit log, as the operator's (db/audit.ts): written by the
    // command's transaction, or at its end for a change made outside one.
    const scope = new AuditScope({ source: "script" });
    scope.actor = CLI_ACTOR;
    try {
      return await inAuditScope(scope, () => fn(handle, config));
    } finally {
      await flushAudit(handle.db, scope);
    }
  } finally {
    await handle.destroy();
  }
}

const CLI_ACTOR = { type: "system", id: "cli", label: "quire command line" } as const;

async function findUser(handle: DatabaseHandle, idOrEmail: string) {
  const user = idOrEmail.includes("@") ? await getUserByEmail(handle.db, idOrEmail) : await getUserById(handle.db, idOrEmail);
  if (!user) throw new CommandError(`No user with ${idOrEmail.includes("@") ? "email" : "id"} "${idOrEmail}".`);
  return user;
}

class CommandError extends Error {}

/** Runs the server until SIGTERM or SIGINT; in-flight requests and running jobs finish first. */
async function serve(io: Io): Promise<number> {
  const config = loadConfig();
  const log = createLogger(config);
  configureWorkerThreads(config.workerThreads);
  configureWorkerHeap(config.workerHeapMb);
  const handle = openFromConfig(config, log);
  const applied = await migrateToLatest(handle.db);
  if (applied.length) log.info({ migrations: applied }, "database migrated");
  const firstStart = await bootstrapIfEmpty(handle.db, config.dataDir);
  if (firstStart) {
    log.info({ file: firstStart.tokenFile }, "first start: created an organization and its owner; the owner's API token is in this file");
  }
  // Commands run beside the server (`quire users login-link`) print addresses under this one.
  await recordPublicUrl(handle.db, config.publicUrl);
  const urls = new Urls(config.publicUrl);
  const secret = await loadInstanceSecret(handle.db, config.secretKey);
  const worker = config.runWorker
    ? new Worker(
        { db: handle.db, dialect: handle.dialect, config, urls, secret, log: log.child({ component: "worker" }) },
        jobDefinitions,
        {
          periodic: periodicJobs,
          concurrency: 2,
        },
      )
    : undefined;
  const app = await buildApp({ config, db: handle.db, dialect: handle.dialect, urls, log, secret, notifyJobs: () => worker?.notify() });
  const address = await app.listen({ port: config.port, host: config.host });
  worker?.start();
  log.info({ address, database: handle.description, publicUrl: config.publicUrl, worker: !!worker }, "quire is serving");
  const stopping = new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      log.info({ signal }, "shutting down: finishing in-flight requests and jobs");
      resolve();
    };
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    process.once("SIGINT", () => shutdown("SIGINT"));
  });
  if (firstStart) io.err(await welcome(app, handle, config, log, firstStart));
  await stopping;
  await app.close();
  await worker?.stop();
  await closeWorkerThreads();
  await handle.destroy();
  io.err("quire stopped");
  return 0;
}

/**
 * What a newcomer needs after the first start: the sample site (unless QUIRE_SAMPLE=false), a
 * one-time sign-in link for the owner, and where the API token is. A sample that cannot be made
 * is reported and the server goes on: it is a convenience, not part of serving.
 */
async function welcome(app: FastifyInstance, handle: DatabaseHandle, config: Config, log: Logger, first: FirstStart): Promise<string> {
  let siteUrl: string | undefined;
  if (config.sample) {
    try {
      siteUrl = (await createSampleSite(app, { token: first.token, orgId: first.organization.id })).siteUrl;
      log.info({ site: siteUrl }, "first start: published a sample site (QUIRE_SAMPLE=false skips it)");
    } catch (error) {
      log.warn({ err: error }, "first start: the sample site could not be made; the server is running without it");
    }
  }
  const { token, expiresAt } = await createLoginLink(handle.db, first.user.id);
  const signIn = `${config.publicUrl}/app/login/link/${token}`;
  log.info({ signIn, expiresAt }, "first start: sign in to the app as the owner with this link (valid once, for 15 minutes)");
  return [
    "",
    "Quire is ready.",
    ...(siteUrl ? [`  Sample docs site:   ${siteUrl}`] : []),
    `  Sign in to the app: ${signIn}`,
    "                      (valid once, for 15 minutes; for a new link: npx quire users login-link --user admin@localhost)",
    `  API token:          in ${first.tokenFile}`,
    "",
  ].join("\n");
}

/** Runs only the job worker (for deployments that separate web and worker processes). */
async function runWorker(once: boolean): Promise<number> {
  const config = loadConfig();
  const log = createLogger(config);
  configureWorkerThreads(config.workerThreads);
  configureWorkerHeap(config.workerHeapMb);
  const handle = openFromConfig(config, log);
  await migrateToLatest(handle.db);
  wireContentHooks();
  const worker = new Worker(
    {
      db: handle.db,
      dialect: handle.dialect,
      config,
      urls: new Urls(config.publicUrl),
      log,
      secret: await loadInstanceSecret(handle.db, config.secretKey),
    },
    jobDefinitions,
    { periodic: once ? [] : periodicJobs, concurrency: 2 },
  );
  if (once) {
    const count = await worker.drain();
    log.info({ jobs: count }, "ran ready jobs");
  } else {
    worker.start();
    await new Promise<void>((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    await worker.stop();
  }
  await closeWorkerThreads();
  await handle.destroy();
  return 0;
}

export function buildCli(io: Io, setExit: (code: number) => void): Command {
  const program = new Command("quire")
    .description("Quire: self-hosted documentation platform with a GitBook-compatible API")
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride()
    .showHelpAfterError();

  program
    .command("serve")
    .description("run the HTTP server (and the job worker unless QUIRE_WORKER=false)")
    .action(async () => setExit(await serve(io)));

  program
    .command("worker")
    .description("run the job worker only")
    .option("--once", "run the jobs that are ready now, then exit")
    .action(async (opts: { once?: boolean }) => setExit(await runWorker(!!opts.once)));

  program
    .command("migrate")
    .description("bring the database schema up to date")
    .action(async () => {
      await withDatabase(async (handle) => {
        io.out(`database ${handle.description} is up to date`);
      });
    });

  program
    .command("init")
    .description("create an organization, its owner (admin) and an API token for the owner")
    .requiredOption("--org <title>", "organization title")
    .requiredOption("--email <email>", "owner's email address")
    .requiredOption("--name <name>", "owner's display name")
    .option("--json", "print the result as JSON")
    .action(async (opts: { org: string; email: string; name: string; json?: boolean }) => {
      validateEmail(opts.email);
      validateTitle(opts.org);
      const result = await withDatabase((handle) =>
        handle.db.transaction().execute(async (trx) => {
          const created = await initOrganization(trx, { orgTitle: opts.org, email: opts.email, name: opts.name });
          const orgIds = [created.organization.id];
          recordAudit({
            action: "organization.created",
            orgIds,
            target: { type: "organization", id: created.organization.id, label: opts.org },
          });
          recordAudit({ action: "user.created", orgIds, target: { type: "user", id: created.user.id, label: opts.email } });
          return created;
        }),
      );
      io.out(
        opts.json
          ? JSON.stringify(result)
          : `organization ${result.organization.id}\nowner ${result.user.id}\ntoken ${result.token}\n(the token is shown once)`,
      );
    });

  const users = program.command("users").description("manage users");
  users
    .command("create")
    .description("create a user (or activate a pending invited account) and issue an API token")
    .requiredOption("--email <email>", "email address")
    .requiredOption("--name <name>", "display name")
    .option("--json", "print the result as JSON")
    .action(async (opts: { email: string; name: string; json?: boolean }) => {
      validateEmail(opts.email);
      const result = await withDatabase((handle) =>
        handle.db.transaction().execute(async (trx) => {
          const existing = await getUserByEmail(trx, opts.email);
          if (existing && !existing.pending) {
            throw new CommandError(
              `A user with email "${opts.email}" already exists (id ${existing.id}); use \`quire tokens create\` (and \`quire users verify\` to vouch for the address).`,
            );
          }
          const user = existing ?? (await ensureUser(trx, opts.email, opts.name));
          if (existing) {
            // Creating the user is vouching for the address, as for a new account.
            await updateUser(trx, user.id, { displayName: opts.name, pending: 0 });
            await verifyAddressByOperator(trx, existing);
          }
          recordAudit({ action: "user.created", target: { type: "user", id: user.id, label: opts.email } });
          const { token } = await createApiToken(trx, user.id, "quire users create");
          return { user: { id: user.id }, token };
        }),
      );
      io.out(opts.json ? JSON.stringify(result) : `user ${result.user.id}\ntoken ${result.token}\n(the token is shown once)`);
    });

  users
    .command("verify")
    .description(
      "vouch for a user's email address for every organization: revokes the account's tokens and sessions when an organization's single sign-on had vouched for it, then gives it the invitations held for it",
    )
    .requiredOption("--user <id|email>", "user id or email address")
    .option("--json", "print the result as JSON")
    .action(async (opts: { user: string; json?: boolean }) => {
      const result = await withDatabase(async (handle) => {
        const user = await findUser(handle, opts.user);
        const outcome = await handle.db.transaction().execute(async (trx) => {
          recordAudit({ action: "user.verified", target: { type: "user", id: user.id, label: user.email } });
          return verifyAddressByOperator(trx, user);
        });
        return { user: { id: user.id }, ...outcome };
      });
      io.out(
        opts.json
          ? JSON.stringify(result)
          : `verified ${result.user.id}: ${result.revokedTokens} token(s) revoked, ${result.endedSessions} session(s) ended` +
              (result.joined.length > 0 ? `, joined ${result.joined.join(", ")}` : ""),
      );
    });

  users
    .command("login-link")
    .description("print a one-time link that signs the user in to the web app (valid once, for 15 minutes)")
    .requiredOption("--user <id|email>", "user id or email address")
    .option("--json", "print the result as JSON")
    .action(async (opts: { user: string; json?: boolean }) => {
      const result = await withDatabase(async (handle, config) => {
        const user = await findUser(handle, opts.user);
        const { token, expiresAt } = await handle.db.transaction().execute(async (trx) => {
          // As with `tokens create`, the operator vouches for a pending invited account.
          if (user.pending) await updateUser(trx, user.id, { pending: 0 });
          const link = await createLoginLink(trx, user.id);
          recordAudit({
            action: "login_link.created",
            target: { type: "user", id: user.id, label: user.email },
            payload: { expiresAt: link.expiresAt },
          });
          return link;
        });
        return { url: `${await commandPublicUrl(handle.db, config)}/app/login/link/${token}`, expiresAt };
      });
      io.out(opts.json ? JSON.stringify(result) : `${result.url}\n(valid once, until ${result.expiresAt})`);
    });

  const tokens = program.command("tokens").description("manage API tokens");
  tokens
    .command("create")
    .description("issue a new API token for a user (also for a pending invited account)")
    .requiredOption("--user <id|email>", "user id or email address")
    .option("--label <label>", "a note to recognise the token by")
    .option("--json", "print the result as JSON")
    .action(async (opts: { user: string; label?: string; json?: boolean }) => {
      const token = await withDatabase(async (handle) => {
        const user = await findUser(handle, opts.user);
        return handle.db.transaction().execute(async (trx) => {
          if (user.pending) await updateUser(trx, user.id, { pending: 0 });
          return (await createApiToken(trx, user.id, opts.label)).token;
        });
      });
      io.out(opts.json ? JSON.stringify({ token }) : `${token}\n(the token is shown once)`);
    });
  tokens
    .command("revoke")
    .description("revoke an API token, given the token itself or its id")
    .argument("<token>", "the token, or its id")
    .option("--json", "print the result as JSON")
    .action(async (tokenOrId: string, opts: { json?: boolean }) => {
      const revoked = await withDatabase((handle) => revokeApiToken(handle.db, tokenOrId));
      if (!revoked) throw new CommandError("No active token matches; it may already be revoked.");
      io.out(opts.json ? JSON.stringify({ revoked: true }) : "token revoked");
    });

  const scim = program
    .command("scim")
    .description("SCIM 2.0 provisioning (an identity provider keeping an organization's members and teams)");
  const scimTokens = scim.command("tokens").description("manage an organization's SCIM tokens (the identity provider's bearer tokens)");
  /** The organization, or a CommandError naming what was given. */
  const organizationOf = async (handle: DatabaseHandle, id: string) => {
    const org = await getOrganization(handle.db, id);
    if (!org) throw new CommandError(`No organization with id "${id}".`);
    return org;
  };
  scimTokens
    .command("create")
    .description("issue a SCIM token for an organization; give it with the base URL to the identity provider")
    .requiredOption("--org <id>", "organization id")
    .requiredOption("--label <label>", "a note to recognise the token by (the identity provider's name)")
    .option("--json", "print the result as JSON")
    .action(async (opts: { org: string; label: string; json?: boolean }) => {
      const label = opts.label.trim();
      if (!label || label.length > 100) throw new CommandError("--label must be 1 to 100 characters.");
      const { token, id, baseURL } = await withDatabase(async (handle, config) => {
        const org = await organizationOf(handle, opts.org);
        const created = await handle.db.transaction().execute(async (trx) => {
          const made = await insertScimToken(trx, { orgId: org.id, label, createdBy: null });
          recordAudit({ action: "scim_token.created", orgIds: [org.id], target: { type: "scim-token", id: made.row.id, label } });
          return made;
        });
        return { token: created.token, id: created.row.id, baseURL: `${new Urls(config.publicUrl).base}/scim/v2` };
      });
      io.out(opts.json ? JSON.stringify({ id, token, baseURL }) : `${token}\nbase URL: ${baseURL}\n(the token is shown once)`);
    });
  scimTokens
    .command("list")
    .description("list an organization's SCIM tokens (never the tokens themselves)")
    .requiredOption("--org <id>", "organization id")
    .option("--json", "print the result as JSON")
    .action(async (opts: { org: string; json?: boolean }) => {
      const rows = await withDatabase(async (handle) => listScimTokens(handle.db, (await organizationOf(handle, opts.org)).id));
      const items = rows.map((r) => ({
        id: r.id,
        label: r.label,
        createdAt: r.createdAt,
        lastUsedAt: r.lastUsedAt,
        revokedAt: r.revokedAt,
      }));
      io.out(
        opts.json
          ? JSON.stringify({ items })
          : items
              .map((t) => `${t.id}  ${t.label}  ${t.revokedAt ? `revoked ${t.revokedAt}` : `last used ${t.lastUsedAt ?? "never"}`}`)
              .join("\n") || "no SCIM tokens",
      );
    });
  scimTokens
    .command("revoke")
    .description("revoke one of an organization's SCIM tokens, by its id")
    .requiredOption("--org <id>", "organization id")
    .argument("<tokenId>", "the token's id (from list)")
    .option("--json", "print the result as JSON")
    .action(async (tokenId: string, opts: { org: string; json?: boolean }) => {
      const revoked = await withDatabase(async (handle) => {
        const org = await organizationOf(handle, opts.org);
        return handle.db.transaction().execute(async (trx) => {
          const done = await revokeScimToken(trx, org.id, tokenId);
          if (done) recordAudit({ action: "scim_token.revoked", orgIds: [org.id], target: { type: "scim-token", id: tokenId } });
          return done;
        });
      });
      if (!revoked) throw new CommandError(`The organization has no SCIM token with id "${tokenId}".`);
      io.out(opts.json ? JSON.stringify({ revoked: true }) : "SCIM token revoked");
    });

  const orgs = program.command("orgs").description("manage organizations");
  orgs
    .command("create")
    .description("create an organization owned (as admin) by an existing user")
    .requiredOption("--title <title>", "organization title")
    .requiredOption("--owner <id|email>", "owner's user id or email address")
    .option("--json", "print the result as JSON")
    .action(async (opts: { title: string; owner: string; json?: boolean }) => {
      validateTitle(opts.title);
      const org = await withDatabase(async (handle) => {
        const owner = await findUser(handle, opts.owner);
        return handle.db.transaction().execute(async (trx) => {
          const org = await createOrganization(trx, { title: opts.title, ownerId: owner.id });
          recordAudit({
            action: "organization.created",
            orgIds: [org.id],
            target: { type: "organization", id: org.id, label: opts.title },
          });
          return org;
        });
      });
      io.out(opts.json ? JSON.stringify({ organization: { id: org.id } }) : `organization ${org.id}`);
    });

  program
    .command("backup")
    .description("copy the SQLite database (with every stored file) into <file>, consistently, while the server runs")
    .argument("<file>", "the backup file to write (replaced when the copy is complete)")
    .option("--json", "print the result as JSON")
    .action(async (file: string, opts: { json?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl) throw new CommandError(POSTGRES_BACKUP_HELP);
      const summary = await backupSqlite(path.join(config.dataDir, "quire.db"), file).catch(asCommandError);
      io.out(
        opts.json
          ? JSON.stringify(summary)
          : `backup ${summary.file}: ${summary.revisions} revisions, ${summary.files} files, ${summary.bytes} bytes`,
      );
    });

  program
    .command("restore")
    .description("replace the SQLite database with a backup made by `quire backup` (stop servers and workers first)")
    .argument("<file>", "the backup file")
    .option("--json", "print the result as JSON")
    .action(async (file: string, opts: { json?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl) throw new CommandError(POSTGRES_BACKUP_HELP);
      const target = path.join(config.dataDir, "quire.db");
      const summary = await restoreSqlite(file, target).catch(asCommandError);
      // A backup made by an older version is brought up to date.
      await withDatabase(async () => {});
      io.out(
        opts.json
          ? JSON.stringify({ ...summary, file: target })
          : `restored ${target}: ${summary.revisions} revisions, ${summary.files} files`,
      );
    });

  return program;
}

function asCommandError(error: unknown): never {
  if (error instanceof BackupError) throw new CommandError(error.message);
  throw error;
}

function validateEmail(email: string): void {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && !/^[^\s@]+@localhost$/.test(email)) {
    throw new CommandError(`"${email}" is not an email address.`);
  }
}

function validateTitle(title: string): void {
  if (title.trim().length < 2 || title.length > 255) {
    throw new CommandError("An organization title must be 2 to 255 characters long.");
  }
}

/** Entry point; returns the process exit code. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  let exitCode = 0;
  const program = buildCli(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CommandError || error instanceof ConfigError) {
      io.err(`error: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
