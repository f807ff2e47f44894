import { isIP } from "node:net";
import path from "node:path";
import { DEFAULT_READ_LIMITS } from "./content/gitbook-repo/read.js";
import { DEFAULT_GIT_LIMITS, type GitLimits } from "./git/operation.js";

/** Typed, validated configuration read from the environment once at start. */
export interface Config {
  /** TCP port of the HTTP server. */
  port: number;
  /** Interface the HTTP server binds to. */
  host: string;
  /** Directory for the embedded database, uploaded files and the first admin token. */
  dataDir: string;
  /** `postgres://...` to run on PostgreSQL; absent means SQLite in `dataDir`. */
  databaseUrl: string | undefined;
  /** Base of every `urls.*` address the API returns, without a trailing slash. */
  publicUrl: string;
  /** Whether the first start on an empty database publishes the sample "getting started" site. */
  sample: boolean;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Whether `quire serve` also runs the job worker loop in the same process. */
  runWorker: boolean;
  /**
   * QUIRE_SERVICES: what `quire serve` runs in this process, of `web` (the API, the web app and the
   * published sites), `worker` (the job worker) and `collab` (the editor's live collaboration:
   * /app/collab and its token). Default all three; `worker` and `collab` are also the legacy
   * QUIRE_WORKER and QUIRE_COLLAB switches.
   */
  services: { web: boolean; worker: boolean; collab: boolean };
  /** Allow `file://` Git remotes (tests and single-machine setups only), under `gitFileRoot`. */
  gitAllowFileUrls: boolean;
  /** The directory `file://` Git remotes must be in (absolute); required when they are allowed. */
  gitFileRoot: string | undefined;
  /** Limits of Git imports and exports (QUIRE_GIT_*). */
  gitLimits: GitLimits;
  /** Largest Markdown page (or include) an import converts; a larger one is left out with a warning. */
  importMaxPageBytes: number;
  /** Memory for published sites' rendered answers (pages, Markdown, indexes), least recently used out first. */
  siteCacheBytes: number;
  /** Threads that parse Markdown, render PDFs and build search entries off the request thread (0: inline). */
  workerThreads: number;
  /**
   * Old-generation heap of each worker thread, in MiB (`resourceLimits.maxOldGenerationSizeMb`);
   * undefined leaves it to V8. A task that needs more fails (an import, a PDF) rather than the process.
   */
  workerHeapMb: number | undefined;
  /** Trust X-Forwarded-* headers (set when running behind a reverse proxy). */
  trustProxy: boolean;
  /**
   * Key for signed URLs and sealed credentials. When unset, a random key is generated once and
   * kept in the database; set it to keep the key out of the database (same value on every process).
   */
  secretKey: string | undefined;
  /** The machine translation engine of translations (see src/modules/translations). */
  translator: TranslatorConfig;
  /** The engine that answers questions asked of the docs (src/content/ask, docs/ask.md). */
  ask: AskConfig;
  /**
   * Networks (CIDR) that URLs given by users may reach besides public addresses, e.g. an intranet
   * host serving OpenAPI documents or Git repositories. Empty by default: private, loopback and
   * link-local addresses are refused.
   */
  fetchAllowNetworks: string[];
  /** Minutes between two fetches of an OpenAPI spec given by URL. */
  openapiRefreshMinutes: number;
  /** Days the audit log keeps an event; the `purge-audit-events` job deletes older ones (the log's only deletion). */
  auditRetentionDays: number;
  /** Insights of published sites (views, searches, questions): whether readers' visits are counted, for how long, how often counts are written. */
  insights: { enabled: boolean; retentionDays: number; flushMs: number };
  /** Time allowed to fetch one OpenAPI document (or one file it references), in milliseconds. */
  openapiFetchTimeoutMs: number;
  /** Largest OpenAPI document (and each file it references) that is fetched, in bytes. */
  openapiMaxBytes: number;
  /** Heap of the thread that processes one OpenAPI document, in MiB. */
  openapiMemoryMb: number;
  rateLimit: RateLimitConfig;
  /** Live collaboration in the editor (src/modules/collab, docs/collaboration.md). */
  collab: CollabConfig;
  /**
   * Who may create organizations: `operators` (the command line only: `quire orgs create`,
   * `quire init`; `POST /v1/orgs` answers 403) or `users` (any API token holder too).
   */
  orgCreation: "operators" | "users";
}

/** Request limits (src/http/rate-limit.ts); every count is per window. */
export interface CollabConfig {
  /** QUIRE_COLLAB: the WebSocket endpoint /app/collab answers (true by default). */
  enabled: boolean;
  /** REDIS_URL: updates and access changes travel between Quire processes through it (one process: not needed). */
  redisUrl: string | undefined;
  /** Largest WebSocket message a client may send (an update; the first sync of a large page is one message too). */
  maxMessageBytes: number;
  /** Largest Yjs state of one document, as persisted. */
  maxStateBytes: number;
  /** Documents one WebSocket connection may open at once. */
  maxDocumentsPerConnection: number;
  /** A connection that has not authenticated a document by then is closed. */
  authTimeoutMs: number;
  /** How long a collab token is valid (the editor asks for a new one when it reconnects). */
  tokenTtlSeconds: number;
  /** Writes wait this long after the last change, and at most maxDebounceMs after the first. */
  debounceMs: number;
  maxDebounceMs: number;
}

export interface RateLimitConfig {
  enabled: boolean;
  windowMs: number;
  /** Requests per API token. */
  perToken: number;
  /** Requests per client address (IPv6: per /64), with or without a token. */
  perAddress: number;
  /**
   * Published pages read per client address (GET of a site's pages, Markdown, llms.txt, assets), a
   * budget of their own: a crawler, a link checker or an office behind one address reads many,
   * each served from cache. A site's search, PDFs and MCP count against `perAddress`.
   */
  perReaderAddress: number;
  /**
   * Questions asked of a published site per client address (`~quire/ask?q=`, `<page>.md?ask=`):
   * each one reads the index and may call a language model, so its budget is far below a page
   * read's. They count against `perAddress` too.
   */
  perAskAddress: number;
  /** Failed authentications (401) per client address before its authenticated requests get 429. */
  authFailures: number;
  /**
   * Where counts live: `redis` (REDIS_URL, shared by every process), `database` (a table of the
   * PostgreSQL or SQLite database, shared by every process using it), or `memory` (this process only).
   */
  store: "memory" | "redis" | "database";
  redisUrl: string | undefined;
  /** Longest a Redis command may take (connecting: at least a second) before the request goes on unlimited. */
  redisTimeoutMs: number;
  /** After Redis failed, how long requests skip it before one tries it again. */
  redisRetryMs: number;
  /** Prefix of the keys in Redis and in the database table. */
  keyPrefix: string;
  /**
   * With the database store: how often a process writes the counts it made (one statement for all
   * keys), in milliseconds; 0 writes every count as it is made (exact across processes, one upsert per request).
   */
  syncMs: number;
}

export interface TranslatorConfig {
  /** `apertium` (offline, Debian's packages) or `libretranslate` (an HTTP service). */
  engine: "apertium" | "libretranslate";
  /** Base URL of the LibreTranslate service (required with `libretranslate`). */
  libreTranslateUrl: string | undefined;
  libreTranslateApiKey: string | undefined;
  /** Longest a call to the engine (one batch of text) may take. */
  timeoutMs: number;
}

export interface AskConfig {
  /**
   * `offline` (default: quotes the passages that answer, no model needed) or `chat`: an
   * OpenAI-compatible `/v1/chat/completions` endpoint, grounded with the same passages.
   */
  engine: "offline" | "chat";
  /** QUIRE_ASK_CHAT_URL: base URL of the endpoint (required with `chat`). */
  chatUrl: string | undefined;
  /** QUIRE_ASK_CHAT_MODEL: the model named in each request (required with `chat`). */
  chatModel: string | undefined;
  /** QUIRE_ASK_CHAT_KEY: sent as `Authorization: Bearer`, when set. */
  chatKey: string | undefined;
  /** QUIRE_ASK_CHAT_TIMEOUT_MS: longest an answer may take to be written. */
  chatTimeoutMs: number;
}

function readAsk(env: Env): AskConfig {
  const engine = env.QUIRE_ASK_ENGINE || (env.QUIRE_ASK_CHAT_URL ? "chat" : "offline");
  if (engine !== "offline" && engine !== "chat") throw new ConfigError(`QUIRE_ASK_ENGINE must be offline or chat, got "${engine}"`);
  const chatUrl = env.QUIRE_ASK_CHAT_URL ? readUrl("QUIRE_ASK_CHAT_URL", env.QUIRE_ASK_CHAT_URL, ["http:", "https:"]) : undefined;
  const chatModel = env.QUIRE_ASK_CHAT_MODEL || undefined;
  if (engine === "chat" && (!chatUrl || !chatModel)) {
    throw new ConfigError("QUIRE_ASK_ENGINE=chat needs QUIRE_ASK_CHAT_URL (the endpoint's base URL) and QUIRE_ASK_CHAT_MODEL");
  }
  return {
    engine,
    chatUrl,
    chatModel,
    chatKey: env.QUIRE_ASK_CHAT_KEY || undefined,
    chatTimeoutMs: readInt(env, "QUIRE_ASK_CHAT_TIMEOUT_MS", 60_000, 1_000, 600_000),
  };
}

export class ConfigError extends Error {}

/** One thread for heavy work by default: the machine's other cores serve requests and the database. */
const DEFAULT_WORKER_THREADS = 1;

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** An integer setting whose absence means "not set" (the component's own default applies). */
function readOptionalInt(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  return readInt(env, name, 0, min, max);
}

const SERVICES = ["web", "worker", "collab"] as const;

/** QUIRE_SERVICES, a comma-separated list of SERVICES; unset: all, less what QUIRE_WORKER or QUIRE_COLLAB turn off. */
function readServices(env: Env): Config["services"] {
  const raw = env.QUIRE_SERVICES?.trim();
  if (!raw) return { web: true, worker: readBool(env, "QUIRE_WORKER", true), collab: readBool(env, "QUIRE_COLLAB", true) };
  const named = raw.split(",").map((name) => name.trim().toLowerCase());
  const unknown = named.filter((name) => !(SERVICES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `QUIRE_SERVICES names ${unknown.map((n) => `"${n}"`).join(", ")}: use a comma-separated list of ${SERVICES.join(", ")}`,
    );
  }
  if (env.QUIRE_WORKER || env.QUIRE_COLLAB) {
    throw new ConfigError("QUIRE_SERVICES is set: leave QUIRE_WORKER and QUIRE_COLLAB unset (QUIRE_SERVICES says which services run)");
  }
  return { web: named.includes("web"), worker: named.includes("worker"), collab: named.includes("collab") };
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "no", "off"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function readUrl(name: string, raw: string, protocols: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(" or ")}, got "${url.protocol}"`);
  }
  return raw;
}

/** QUIRE_GIT_FILE_ROOT: without it, allowing file:// remotes would allow any repository (or directory) of the machine. */
function readGitFileRoot(env: Env, allowed: boolean): string | undefined {
  const raw = env.QUIRE_GIT_FILE_ROOT?.trim();
  if (!raw) {
    if (allowed) {
      throw new ConfigError(
        "QUIRE_GIT_ALLOW_FILE_URLS=true needs QUIRE_GIT_FILE_ROOT, the directory file:// Git remotes must be in (an absolute path)",
      );
    }
    return undefined;
  }
  if (!path.isAbsolute(raw)) throw new ConfigError(`QUIRE_GIT_FILE_ROOT must be an absolute path, got "${raw}"`);
  return path.resolve(raw);
}

function readSecretKey(env: Env): string | undefined {
  const raw = env.QUIRE_SECRET_KEY;
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < 32) throw new ConfigError("QUIRE_SECRET_KEY must be at least 32 characters long");
  return raw;
}

function readTranslator(env: Env): TranslatorConfig {
  const engine = env.QUIRE_TRANSLATOR || "apertium";
  if (engine !== "apertium" && engine !== "libretranslate") {
    throw new ConfigError(`QUIRE_TRANSLATOR must be apertium or libretranslate, got "${engine}"`);
  }
  const url = env.QUIRE_LIBRETRANSLATE_URL
    ? readUrl("QUIRE_LIBRETRANSLATE_URL", env.QUIRE_LIBRETRANSLATE_URL, ["http:", "https:"]).replace(/\/+$/, "")
    : undefined;
  if (engine === "libretranslate" && !url)
    throw new ConfigError("QUIRE_LIBRETRANSLATE_URL must be set when QUIRE_TRANSLATOR=libretranslate");
  return {
    engine,
    libreTranslateUrl: url,
    libreTranslateApiKey: env.QUIRE_LIBRETRANSLATE_API_KEY || undefined,
    timeoutMs: readInt(env, "QUIRE_TRANSLATOR_TIMEOUT_MS", 120_000, 1_000, 3_600_000),
  };
}

function readNetworks(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return [];
  const networks = raw
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  for (const network of networks) {
    const [address, prefix, extra] = network.split("/");
    const family = isIP(address ?? "");
    const bits = Number(prefix);
    if (extra !== undefined || family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
      throw new ConfigError(`${name} must be a comma-separated list of networks such as 10.0.0.0/8 or fd00::/8, got "${network}"`);
    }
  }
  return networks;
}

const RATE_LIMIT_STORES = ["memory", "redis", "database"] as const;

function readRateLimit(env: Env, databaseUrl: string | undefined): RateLimitConfig {
  const redisUrl = env.REDIS_URL ? readUrl("REDIS_URL", env.REDIS_URL, ["redis:", "rediss:"]) : undefined;
  const store = (env.QUIRE_RATE_LIMIT_STORE || (redisUrl ? "redis" : databaseUrl ? "database" : "memory")) as RateLimitConfig["store"];
  if (!RATE_LIMIT_STORES.includes(store)) {
    throw new ConfigError(`QUIRE_RATE_LIMIT_STORE must be one of ${RATE_LIMIT_STORES.join(", ")}, got "${store}"`);
  }
  if (store === "redis" && !redisUrl) throw new ConfigError("QUIRE_RATE_LIMIT_STORE=redis needs REDIS_URL");
  return {
    enabled: readBool(env, "QUIRE_RATE_LIMIT", true),
    windowMs: readInt(env, "QUIRE_RATE_LIMIT_WINDOW", 60, 1, 86_400) * 1000,
    perToken: readInt(env, "QUIRE_RATE_LIMIT_TOKEN", 600, 1, 1_000_000_000),
    perAddress: readInt(env, "QUIRE_RATE_LIMIT_ADDRESS", 1200, 1, 1_000_000_000),
    perReaderAddress: readInt(env, "QUIRE_RATE_LIMIT_READER", 12_000, 1, 1_000_000_000),
    perAskAddress: readInt(env, "QUIRE_RATE_LIMIT_ASK", 20, 1, 1_000_000_000),
    authFailures: readInt(env, "QUIRE_RATE_LIMIT_AUTH_FAILURES", 20, 1, 1_000_000_000),
    store,
    redisUrl,
    redisTimeoutMs: readInt(env, "QUIRE_REDIS_TIMEOUT_MS", 500, 10, 60_000),
    redisRetryMs: readInt(env, "QUIRE_REDIS_RETRY_MS", 5000, 100, 3_600_000),
    keyPrefix: "quire:rl:",
    syncMs: readInt(env, "QUIRE_RATE_LIMIT_SYNC_MS", 250, 0, 60_000),
  };
}

const ORG_CREATION = ["operators", "users"] as const;

function readOrgCreation(env: Env): Config["orgCreation"] {
  const raw = env.QUIRE_ORG_CREATION || "operators";
  if (!(ORG_CREATION as readonly string[]).includes(raw)) {
    throw new ConfigError(`QUIRE_ORG_CREATION must be one of ${ORG_CREATION.join(", ")}, got "${raw}"`);
  }
  return raw as Config["orgCreation"];
}

/** Reads and validates the configuration; throws ConfigError with the variable's name on bad input. */
export function loadConfig(env: Env = process.env): Config {
  const port = readInt(env, "PORT", 8080, 0, 65535);
  const logLevel = (env.LOG_LEVEL ?? "info") as Config["logLevel"];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  const databaseUrl = env.DATABASE_URL ? readUrl("DATABASE_URL", env.DATABASE_URL, ["postgres:", "postgresql:"]) : undefined;
  const gitAllowFileUrls = readBool(env, "QUIRE_GIT_ALLOW_FILE_URLS", false);
  const publicUrl = readUrl("QUIRE_PUBLIC_URL", env.QUIRE_PUBLIC_URL || `http://localhost:${port}`, ["http:", "https:"]).replace(
    /\/+$/,
    "",
  );
  const services = readServices(env);
  return {
    port,
    host: env.HOST || "0.0.0.0",
    dataDir: path.resolve(env.QUIRE_DATA_DIR || "data"),
    databaseUrl,
    publicUrl,
    sample: readBool(env, "QUIRE_SAMPLE", true),
    logLevel,
    bodyLimit: readInt(env, "QUIRE_BODY_LIMIT", 1024 * 1024, 1024, 1024 * 1024 * 1024),
    runWorker: services.worker,
    services,
    gitAllowFileUrls,
    gitFileRoot: readGitFileRoot(env, gitAllowFileUrls),
    trustProxy: readBool(env, "QUIRE_TRUST_PROXY", false),
    gitLimits: {
      maxFileBytes: readInt(env, "QUIRE_GIT_MAX_FILE_BYTES", DEFAULT_GIT_LIMITS.maxFileBytes, 1, Number.MAX_SAFE_INTEGER),
      maxRepoBytes: readInt(env, "QUIRE_GIT_MAX_IMPORT_BYTES", DEFAULT_GIT_LIMITS.maxRepoBytes, 1, Number.MAX_SAFE_INTEGER),
      maxFiles: readInt(env, "QUIRE_GIT_MAX_FILES", DEFAULT_GIT_LIMITS.maxFiles, 1, 10_000_000),
      maxFetchBytes: readInt(env, "QUIRE_GIT_MAX_FETCH_BYTES", DEFAULT_GIT_LIMITS.maxFetchBytes, 1, Number.MAX_SAFE_INTEGER),
      maxTreeEntries: readInt(env, "QUIRE_GIT_MAX_TREE_ENTRIES", DEFAULT_GIT_LIMITS.maxTreeEntries, 1, 100_000_000),
      timeoutMs: readInt(env, "QUIRE_GIT_TIMEOUT_MS", DEFAULT_GIT_LIMITS.timeoutMs, 1000, 24 * 3600_000),
    },
    siteCacheBytes: readInt(env, "QUIRE_SITE_CACHE_MB", 128, 1, 65_536) * 1024 * 1024,
    importMaxPageBytes: readInt(env, "QUIRE_IMPORT_MAX_PAGE_BYTES", DEFAULT_READ_LIMITS.maxPageBytes, 1024, 1024 * 1024 * 1024),
    workerThreads: readInt(env, "QUIRE_WORKER_THREADS", DEFAULT_WORKER_THREADS, 0, 64),
    workerHeapMb: readOptionalInt(env, "QUIRE_WORKER_HEAP_MB", 64, 65_536),
    secretKey: readSecretKey(env),
    translator: readTranslator(env),
    fetchAllowNetworks: readNetworks(env, "QUIRE_FETCH_ALLOW_NETWORKS"),
    openapiRefreshMinutes: readInt(env, "QUIRE_OPENAPI_REFRESH_MINUTES", 360, 1, 525_600),
    auditRetentionDays: readInt(env, "QUIRE_AUDIT_RETENTION_DAYS", 365, 1, 36_500),
    insights: {
      enabled: readBool(env, "QUIRE_INSIGHTS", true),
      retentionDays: readInt(env, "QUIRE_INSIGHTS_RETENTION_DAYS", 180, 1, 36_500),
      flushMs: readInt(env, "QUIRE_INSIGHTS_FLUSH_MS", 5000, 100, 600_000),
    },
    openapiFetchTimeoutMs: readInt(env, "QUIRE_OPENAPI_FETCH_TIMEOUT_MS", 30_000, 100, 600_000),
    openapiMaxBytes: readInt(env, "QUIRE_OPENAPI_MAX_BYTES", 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    openapiMemoryMb: readInt(env, "QUIRE_OPENAPI_MEMORY_MB", 1024, 64, 65_536),
    rateLimit: readRateLimit(env, databaseUrl),
    collab: {
      enabled: services.collab,
      redisUrl: env.REDIS_URL ? readUrl("REDIS_URL", env.REDIS_URL, ["redis:", "rediss:"]) : undefined,
      maxMessageBytes: readInt(env, "QUIRE_COLLAB_MAX_MESSAGE_BYTES", 2 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxStateBytes: readInt(env, "QUIRE_COLLAB_MAX_STATE_BYTES", 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxDocumentsPerConnection: readInt(env, "QUIRE_COLLAB_MAX_DOCUMENTS", 8, 1, 1000),
      authTimeoutMs: readInt(env, "QUIRE_COLLAB_AUTH_TIMEOUT_MS", 10_000, 100, 600_000),
      tokenTtlSeconds: readInt(env, "QUIRE_COLLAB_TOKEN_TTL", 600, 10, 86_400),
      debounceMs: readInt(env, "QUIRE_COLLAB_DEBOUNCE_MS", 500, 0, 60_000),
      maxDebounceMs: readInt(env, "QUIRE_COLLAB_MAX_DEBOUNCE_MS", 3000, 0, 600_000),
    },
    orgCreation: readOrgCreation(env),
    ask: readAsk(env),
  };
}
