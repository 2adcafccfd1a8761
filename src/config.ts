import { isIP } from 'node:net';
import { IANAZone } from 'luxon';

/** The whole runtime configuration. Only this module reads `process.env`. */
export interface Config {
  port: number;
  host: string;
  /** undefined: PGlite on disk in dataDir; 'memory://': PGlite in memory; postgres://...: server */
  databaseUrl: string | undefined;
  dataDir: string;
  apiKeys: { crmId: string; key: string }[];
  reservationHoldSeconds: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  publicBaseUrl: string;
  defaultTimeZone: string;
  canonicalHost: string | undefined;
  logLevel: string;
  /** HMAC secret of cancel links; when unset one is generated once and kept in the database */
  cancelLinkSecret: string | undefined;
  /** requests per minute and IP on reserve and create_appointment_with_consumer */
  bookingRateLimitPerMinute: number;
  /**
   * live reservation holds one client (booking/clientKey.ts) may have at once; counted without a lock,
   * so concurrent claims of one client may overshoot by those in flight (docs/deploy.md)
   */
  maxHoldsPerIp: number;
  /**
   * IPV6_PREFIX_LENGTH: the per-client limits count an IPv6 client by its network of this many bits (IPv4: per address)
   */
  ipv6PrefixLength: number;
  mailPollMs: number;
  /**
   * Whose X-Forwarded-For is believed (Fastify's trustProxy): the client address behind it is what
   * the per-IP limits count. true: everybody's; false: nobody's; else these addresses/subnets.
   */
  trustProxy: boolean | string[];
  /** Redis shared by all instances for the per-client counters; undefined: in-process counters */
  redisUrl: string | undefined;
  /** prefix of every Redis key, so several deployments can share one Redis */
  redisKeyPrefix: string;
  /** PostgreSQL connections per instance for requests (the background jobs have their own JOB_POOL_SIZE) */
  databasePoolSize: number;
  /** PostgreSQL connections per instance kept for A1's listing reads, so bookings never make them queue */
  listingPoolSize: number;
  jobPoolSize: number;
  /**
   * DATABASE_STATEMENT_TIMEOUT_MS: the longest a request's statement or transaction may take on
   * PostgreSQL, a COMMIT waiting for an absent synchronous standby included (storage/db.ts Deadline);
   * with the cancel's grace a request answers within 10 s by default. The jobs have no limit.
   */
  databaseStatementTimeoutMs: number;
  /** false: unnamed statements only (PgBouncer < 1.21 in transaction pooling) */
  preparedStatements: boolean;
  holdSweepMs: number;
  listingCompactMs: number;
  /** LISTING_CACHE_MIB: what A1's cache of computed listings may hold per instance, in bytes */
  listingCacheBytes: number;
  /** how long after SIGTERM the instance keeps serving while /readyz already answers 503 */
  shutdownGraceMs: number;
  /** first retry wait of a webhook delivery; the whole retry schedule scales with it (src/webhooks/schedule.ts) */
  webhookRetryBaseMs: number;
  /** webhook destinations in loopback, private, link-local and multicast networks are refused unless true */
  webhookAllowPrivateNetworks: boolean;
  /** a delivery not answered with a 2xx within this is retried */
  webhookTimeoutMs: number;
  /** how often the webhook worker looks for due deliveries (an event written in this process wakes it at once) */
  webhookPollMs: number;
  /** calendar addresses in loopback, private, link-local and multicast networks are refused unless true */
  calendarAllowPrivateNetworks: boolean;
  /** CALENDAR_SYNC_SECONDS: how often each subscribed calendar is read again */
  calendarSyncMs: number;
  /** how often the jobs look for due calendar reads and write-backs */
  calendarPollMs: number;
  /** REMINDER_MINUTES_BEFORE: reminder offsets before an appointment's start; [] = no reminders */
  reminderMinutesBefore: number[];
  /**
   * PERSONAL_DATA_RETENTION_DAYS: personal data of participations
   * whose appointment ended longer ago is erased; undefined: kept
   */
  personalDataRetentionDays: number | undefined;
  /** how often the retention job looks (RETENTION_SWEEP_SECONDS) */
  retentionSweepMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function parseApiKeys(raw: string | undefined): Config['apiKeys'] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf(':');
      if (i <= 0 || i === pair.length - 1) {
        throw new ConfigError(`API_KEYS must be comma-separated crmId:key pairs, got an entry without both parts`);
      }
      return { crmId: pair.slice(0, i), key: pair.slice(i + 1) };
    });
}

function parseDatabaseUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (raw === 'memory://' || /^postgres(ql)?:\/\//.test(raw)) return raw;
  throw new ConfigError(`DATABASE_URL must be unset, memory:// or a postgres:// URL`);
}

function parseRedisUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    /* reported below */
  }
  if (!url || !['redis:', 'rediss:'].includes(url.protocol) || !url.hostname) {
    throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL with a host, got "${raw}"`);
  }
  return raw;
}

function parseUrl(name: string, raw: string): string {
  try {
    return new URL(raw).toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
}

/** Also the default: a proxy on this host or in a private network, so a direct client cannot pick its own address. */
const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function parseTrustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw === '') return PROXY_NAMES;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const validPrefix =
      prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (isIP(address) === 4 ? 32 : 128));
    if (!(PROXY_NAMES.includes(entry) || (isIP(address) && validPrefix && rest.length === 0))) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false or a comma-separated list of addresses, ` +
          `subnets or ${PROXY_NAMES.join('/')}; "${entry}" is none of them`,
      );
    }
  }
  return entries;
}

/** The longest offset a reminder may have: a year, like every other minute field. */
export const MAX_REMINDER_MINUTES = 525_600;

function parseReminderMinutes(raw: string | undefined): number[] {
  if (raw === undefined) return [1440];
  const parts = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const values = parts.map(Number);
  if (values.some((v) => !Number.isInteger(v) || v < 1 || v > MAX_REMINDER_MINUTES)) {
    throw new ConfigError(
      `REMINDER_MINUTES_BEFORE must be a comma-separated list of whole minutes between 1 and ` +
        `${MAX_REMINDER_MINUTES} (empty: no reminders), got "${raw}"`,
    );
  }
  return [...new Set(values)].sort((a, b) => b - a);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const defaultTimeZone = env.DEFAULT_TIME_ZONE || 'Europe/Berlin';
  if (!IANAZone.isValidZone(defaultTimeZone)) {
    throw new ConfigError(`DEFAULT_TIME_ZONE must be an IANA time zone, got "${defaultTimeZone}"`);
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError(`SMTP_URL must start with smtp:// or smtps://, got "${smtpUrl}"`);
  }
  return {
    port,
    host,
    databaseUrl: parseDatabaseUrl(env.DATABASE_URL),
    dataDir: env.DATA_DIR || './data',
    apiKeys: parseApiKeys(env.API_KEYS),
    reservationHoldSeconds: int(env, 'RESERVATION_HOLD_SECONDS', 180, 1, 86400),
    smtpUrl,
    mailFrom: env.MAIL_FROM || 'Booking Service <no-reply@booking.local>',
    publicBaseUrl: parseUrl('PUBLIC_BASE_URL', env.PUBLIC_BASE_URL || `http://${host}:${port}`),
    defaultTimeZone,
    canonicalHost: env.CANONICAL_HOST || undefined,
    logLevel,
    cancelLinkSecret: env.CANCEL_LINK_SECRET || undefined,
    bookingRateLimitPerMinute: int(env, 'BOOKING_RATE_LIMIT_PER_MINUTE', 120, 1),
    maxHoldsPerIp: int(env, 'MAX_HOLDS_PER_IP', 10, 1),
    ipv6PrefixLength: int(env, 'IPV6_PREFIX_LENGTH', 64, 32, 128),
    mailPollMs: int(env, 'MAIL_POLL_MS', 1000, 10),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    redisUrl: parseRedisUrl(env.REDIS_URL),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'booking:',
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 7, 1, 1000),
    listingPoolSize: int(env, 'LISTING_POOL_SIZE', 2, 1, 100),
    jobPoolSize: int(env, 'JOB_POOL_SIZE', 2, 1, 100),
    databaseStatementTimeoutMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 8000, 100, 60_000),
    preparedStatements: bool(env, 'DATABASE_PREPARED_STATEMENTS', true),
    holdSweepMs: int(env, 'HOLD_SWEEP_SECONDS', 15, 1, 86400) * 1000,
    listingCompactMs: int(env, 'LISTING_COMPACT_MS', 2000, 100, 3_600_000),
    listingCacheBytes: int(env, 'LISTING_CACHE_MIB', 16, 1, 4096) * 1024 * 1024,
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 2000, 0, 8000),
    webhookRetryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 1, 3_600_000),
    webhookAllowPrivateNetworks: bool(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookPollMs: int(env, 'WEBHOOK_POLL_MS', 1000, 10),
    reminderMinutesBefore: parseReminderMinutes(env.REMINDER_MINUTES_BEFORE),
    calendarAllowPrivateNetworks: bool(env, 'CALENDAR_ALLOW_PRIVATE_NETWORKS', false),
    calendarSyncMs: int(env, 'CALENDAR_SYNC_SECONDS', 300, 10, 86_400) * 1000,
    calendarPollMs: int(env, 'CALENDAR_POLL_MS', 5000, 10, 3_600_000),
    personalDataRetentionDays: env.PERSONAL_DATA_RETENTION_DAYS
      ? int(env, 'PERSONAL_DATA_RETENTION_DAYS', 0, 1, 36_500)
      : undefined,
    retentionSweepMs: int(env, 'RETENTION_SWEEP_SECONDS', 900, 1, 86_400) * 1000,
  };
}

/** Config for tests and tools: defaults plus overrides, no environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ DATABASE_URL: 'memory://', LOG_LEVEL: 'silent' }), ...overrides };
}
