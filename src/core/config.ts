import { z } from 'zod';
import path from 'node:path';
import { Secret } from './secret.ts';
import { StartupError } from './errors.ts';
import { networksConfig, type NetworkConfig, type NetworkName } from './networks-config.ts';
import { checksumHolds } from './deposit-addresses.ts';

// Environment -> typed, validated configuration. Every variable is documented in config-docs.ts,
// from which docs/reference/configuration.md is generated.

/** The processes of the service (`npm start -- --role …`; the all-in-one is all three) and the operator's CLI. */
export const PROCESS_ROLES = ['api', 'worker', 'processor', 'cli'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];
const Port = z.coerce.number().int().min(0).max(65535);
const PerMinute = z.coerce.number().int().min(1);
/** A block explorer's origin (and path prefix), without a trailing slash: the books link `<url>/tx/<hash>`. */
const ExplorerUrl = z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ''));
const Key = z.string().min(1);
// Banxa's hosted page is https://<partner>.banxa.com/, so the partner reference must be one DNS label.
const DNS_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
// Wert's hosted page carries the partner id in its path.
const PATH_SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;
/** The ECB's euro foreign exchange reference rates of the latest working day. */
export const ECB_DAILY_RATES_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';
// A sender: `addr@host` or `Name <addr@host>`, on one line.
const MAIL_FROM = /^(?:[^<>\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/;

function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol) && new URL(text).hostname !== '';
}

function isSmtpUrl(text: string): boolean {
  return URL.canParse(text) && /^smtps?:$/.test(new URL(text).protocol) && new URL(text).hostname !== '';
}

/** The variables config.ts reads itself (networks-config.ts reads the per-network ones). */
export const Env = z.object({
  PORT: Port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_PG_PORT: Port.optional(),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  SECRET_ENCRYPTION_KEY: z.base64().optional(),
  DEPOSIT_XPUB: z.string().regex(/^[xt]pub[1-9A-HJ-NP-Za-km-z]{100,}$/, 'an extended public key (xpub…)').optional(),
  PROCESSOR_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  PROCESSOR_SEED_FILE: z.string().min(1).optional(),
  PROCESSOR_FEE_WALLET: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x address of 40 hex digits')
    .refine(checksumHolds, 'its letter case fails the EIP-55 checksum (a mistyped address?)').optional(),
  PROCESSOR_STATUS_FRESH_SECONDS: z.coerce.number().int().min(15).max(86_400).default(120),
  PROCESSOR_NOTICES_URL: z.url({ protocol: /^https?$/ }).optional(),
  PROCESSOR_POLL_MS: z.coerce.number().int().min(200).max(60_000).default(2_000),
  X402_SETTLE_WAIT_SECONDS: z.coerce.number().int().min(0).max(25).default(25),
  POLYGON_EXPLORER_URL: ExplorerUrl.default('https://polygonscan.com'),
  BASE_EXPLORER_URL: ExplorerUrl.default('https://basescan.org'),
  ETHEREUM_EXPLORER_URL: ExplorerUrl.default('https://etherscan.io'),
  METRICS_PORT: Port.optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_TOKEN: z.string().regex(/^[\x21-\x7e]{32,}$/, 'at least 32 visible ASCII characters (no spaces)').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  RATE_LIMIT_BUSINESS_PER_MINUTE: PerMinute.default(120),
  RATE_LIMIT_AGENT_PER_MINUTE: PerMinute.default(120),
  RATE_LIMIT_SESSION_STARTS_PER_MINUTE: PerMinute.default(12),
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: PerMinute.default(60),
  RATE_LIMIT_PAYER_PAGES_PER_MINUTE: PerMinute.default(300),
  RATE_LIMIT_PAYER_FORMS_PER_MINUTE: PerMinute.default(30),
  RATE_LIMIT_PAYER_STARTS_PER_MINUTE: PerMinute.default(12),
  RATE_LIMIT_PAYER_STARTS_PER_VISITOR_PER_MINUTE: PerMinute.default(3),
  RATE_LIMIT_TEST_EVENTS_PER_MINUTE: PerMinute.default(5),
  OAUTH_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_NAME: z.string().min(1).max(60).default('your identity provider'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(10_000),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).optional(),
  WEBHOOK_TEST_LOOPBACK: z.enum(['on', 'off']).default('on'),
  MOONPAY_API_KEY: Key.optional(),
  MOONPAY_SECRET_KEY: Key.optional(),
  RAMP_HOST_API_KEY: Key.optional(),
  BANXA_PARTNER: z.string().regex(DNS_LABEL, 'your Banxa partner subdomain, a DNS label such as "yourcompany"').optional(),
  MERCURYO_WIDGET_ID: Key.optional(),
  MERCURYO_SECRET: Key.optional(),
  WERT_PARTNER_ID: z.string().regex(PATH_SEGMENT, 'your Wert partner id (letters, digits, "-" and "_")').optional(),
  // The message names the rule, never the value: the URL may carry the SMTP password.
  SMTP_URL: z.string().refine(isSmtpUrl, 'an smtp:// or smtps:// URL (smtp://user:password@host:587)').optional(),
  SMTP_FROM: z.string().regex(MAIL_FROM, 'an address, or a name and an address: Payments <no-reply@example.com>').optional(),
  OPERATOR_EMAIL: z.email('an email address (ops@example.com)').optional(),
  FX_RATES_URL: z.string().refine((text) => text === 'off' || isHttpUrl(text), 'an http(s):// URL of reference rates in the ECB\'s format, or off').default(ECB_DAILY_RATES_URL),
  FX_RATES_MAX_AGE_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(96),
});

export interface RateLimitConfig {
  enabled: boolean;
  businessPerMinute: number;
  agentPerMinute: number;
  /** Session starts through the API (secret keys, agents in Live) per business and mode; payer pages never draw on it. */
  sessionStartsPerMinute: number;
  unauthenticatedPerMinute: number;
  /** Payer pages loaded per client address per minute. */
  payerPagesPerMinute: number;
  /** Payer forms posted (starts, choices) per client address per minute. */
  payerFormsPerMinute: number;
  /** Starts on the payer pages per business and mode: a budget of its own, apart from the API's. */
  payerStartsPerMinute: number;
  /** Starts on the payer pages per visitor (client address, and browser) per business and mode. */
  payerStartsPerVisitorPerMinute: number;
  /** Test events sent (Send test event) per webhook endpoint per minute. */
  testEventsPerMinute: number;
}

export interface Config {
  port: number;
  host: string;
  /** Public origin, without a trailing slash; the API base is `${baseUrl}/v1`. */
  baseUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** The embedded PostgreSQL's port when set; else each data folder's cluster keeps its own free port. */
  embeddedPgPort: number | undefined;
  dbPoolSize: number;
  /** 32-byte key that encrypts webhook signing secrets at rest; generated under dataDir when unset. */
  secretEncryptionKey: Buffer | undefined;
  /** Extended public key Live deposit addresses are derived from; generated under dataDir when unset. */
  depositXpub: string | undefined;
  /** Shared secret the payment processor signs its notices with; generated under dataDir when unset. */
  processorSecret: string | undefined;
  /** How recent a network's processor.status report must be for Live starts to offer its coins. */
  processorStatusFreshSeconds: number;
  /** How long a Live x402 paid retry waits for its payment to be paid before answering 202 settlement_pending (docs/x402.md). */
  x402SettleWaitSeconds: number;
  /** Where the processor posts its notices; default: the all-in-one's own listener, else BASE_URL. */
  processorNoticesUrl: string | undefined;
  /** How often the processor scans, confirms, forwards and delivers its notices. */
  processorPollMs: number;
  /** Each network's block explorer, where the books link a transaction (`<url>/tx/<hash>`). */
  explorers: Record<NetworkName, string>;
  logLevel: string;
  metrics: MetricsConfig;
  trustProxy: boolean;
  rateLimits: RateLimitConfig;
  webhooks: WebhookConfig;
  /** The agents' authorization server's issuer identifier (default: the service's origin). */
  oauthIssuer: string;
  /** People's sign-in through an OpenID Connect provider, when one is configured. */
  oidc: OidcConfig | undefined;
  /** The card providers' partner keys: a provider without its keys is not offered to Live buyers. */
  providers: ProvidersConfig;
  mail: MailConfig;
  /** The chains the processor watches: those whose RPC URL is set (core/networks-config.ts). */
  networks: NetworkConfig[];
  /** What only the processor role reads (src/processor/chain/keys.ts, forwarding/forwarding.ts). */
  processor: ProcessorConfig;
  fxRates: FxRatesConfig;
}

export interface ProcessorConfig {
  /** The deposit seed's file (hex); unset: the embedded default's seed under DATA_DIR. */
  seedFile: string | undefined;
  /** Where each forward's fee goes (lowercase); unset: the processor does not forward. */
  feeWallet: `0x${string}` | undefined;
}

export interface FxRatesConfig {
  /** Where the workers fetch reference rates (the ECB's XML format); undefined: no feed (FX_RATES_URL=off). */
  url: string | undefined;
  /** A Live start refuses a non-USD price whose rate is older than this (hours). */
  maxAgeHours: number;
}

export interface MetricsConfig {
  /** A second listener for /metrics, /healthz and /readyz (the only HTTP a worker serves); unset: none. */
  port: number | undefined;
  host: string;
  /** The bearer token /metrics asks for; without it the main port serves no /metrics at all. */
  token: Secret | undefined;
}

export interface MailConfig {
  /** Where mail is sent (nodemailer's SMTP URL, password included); unset: mail stays in the outbox. */
  smtpUrl: Secret | undefined;
  /** The sender of every mail. */
  from: string;
  /** Who is told when money cannot move (a forward failed or late): at most one mail per cause per hour; unset: nobody is mailed. */
  operatorEmail?: string | undefined;
}

export interface ProvidersConfig {
  /** MoonPay signs every URL that names a wallet, so it needs the secret key as well as the publishable one. */
  moonpay: { apiKey: string; secretKey: Secret } | undefined;
  ramp: { hostApiKey: string } | undefined;
  /** The partner subdomain of https://<partner>.banxa.com/, in lower case. */
  banxa: { partner: string } | undefined;
  /** Mercuryo's signature covers the wallet address with the widget's secret. */
  mercuryo: { widgetId: string; secret: Secret } | undefined;
  wert: { partnerId: string } | undefined;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the sign-in button calls the provider. */
  name: string;
}

export interface WebhookConfig {
  /** A delivery succeeds on a 2xx, body included, within this time (spec: 10 seconds). */
  timeoutMs: number;
  /** Deliveries one worker process sends at once. */
  concurrency: number;
  /** Deliveries to one endpoint in flight at once, across all worker processes: a slow endpoint's share. */
  endpointConcurrency: number;
  /** Whether Test endpoints may point at this machine (spec 4.4: http://localhost); off for a hosted service. */
  testLoopback: boolean;
}

/** The issuer is an origin this service answers at: its metadata is at {issuer}/.well-known/oauth-authorization-server. */
function oauthIssuer(given: string | undefined, baseUrl: string): string {
  if (given === undefined) return baseUrl;
  const url = new URL(given);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new StartupError('Invalid configuration:\n  OAUTH_ISSUER must be an origin (https://auth.example.com), without a path: clients look for its metadata at /.well-known/oauth-authorization-server.');
  }
  return url.origin;
}

/** Settings that work only together: all of them (returned), none (undefined), or a refusal naming what is missing. */
function together<Name extends string>(settings: Record<Name, string | undefined>): Record<Name, string> | undefined {
  const names = Object.keys(settings) as Name[];
  const missing = names.filter((name) => settings[name] === undefined);
  if (missing.length === names.length) return undefined;
  if (missing.length > 0) {
    const all = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    throw new StartupError(`Invalid configuration:\n  ${all} go together; ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing.`);
  }
  return settings as Record<Name, string>;
}

function oidcConfig(e: z.infer<typeof Env>): OidcConfig | undefined {
  const oidc = together({ OIDC_ISSUER: e.OIDC_ISSUER, OIDC_CLIENT_ID: e.OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: e.OIDC_CLIENT_SECRET });
  return oidc && { issuer: oidc.OIDC_ISSUER.replace(/\/+$/, ''), clientId: oidc.OIDC_CLIENT_ID, clientSecret: oidc.OIDC_CLIENT_SECRET, name: e.OIDC_NAME };
}

/** One endpoint's share of a worker's deliveries: 10 unless set, and never more than the whole. */
function endpointConcurrency(e: z.infer<typeof Env>): number {
  const share = e.WEBHOOK_ENDPOINT_CONCURRENCY;
  if (share === undefined) return Math.min(10, e.WEBHOOK_CONCURRENCY);
  if (share > e.WEBHOOK_CONCURRENCY) {
    throw new StartupError(`Invalid configuration:\n  WEBHOOK_ENDPOINT_CONCURRENCY (${share}) must not exceed WEBHOOK_CONCURRENCY (${e.WEBHOOK_CONCURRENCY}): it is one endpoint's share of the deliveries in flight.`);
  }
  return share;
}

function providersConfig(e: z.infer<typeof Env>): ProvidersConfig {
  const moonpay = together({ MOONPAY_API_KEY: e.MOONPAY_API_KEY, MOONPAY_SECRET_KEY: e.MOONPAY_SECRET_KEY });
  const mercuryo = together({ MERCURYO_WIDGET_ID: e.MERCURYO_WIDGET_ID, MERCURYO_SECRET: e.MERCURYO_SECRET });
  return {
    moonpay: moonpay && { apiKey: moonpay.MOONPAY_API_KEY, secretKey: new Secret(moonpay.MOONPAY_SECRET_KEY) },
    ramp: e.RAMP_HOST_API_KEY === undefined ? undefined : { hostApiKey: e.RAMP_HOST_API_KEY },
    banxa: e.BANXA_PARTNER === undefined ? undefined : { partner: e.BANXA_PARTNER.toLowerCase() },
    mercuryo: mercuryo && { widgetId: mercuryo.MERCURYO_WIDGET_ID, secret: new Secret(mercuryo.MERCURYO_SECRET) },
    wert: e.WERT_PARTNER_ID === undefined ? undefined : { partnerId: e.WERT_PARTNER_ID },
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new StartupError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const key = e.SECRET_ENCRYPTION_KEY === undefined ? undefined : Buffer.from(e.SECRET_ENCRYPTION_KEY, 'base64');
  if (key !== undefined && key.length !== 32) throw new StartupError('SECRET_ENCRYPTION_KEY must be 32 bytes, base64-encoded.');
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    throw new StartupError('Invalid configuration:\n  METRICS_PORT must differ from PORT: it is a second listener (set METRICS_TOKEN instead to serve /metrics on PORT).');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    dbPoolSize: e.DB_POOL_SIZE,
    secretEncryptionKey: key,
    depositXpub: e.DEPOSIT_XPUB,
    processorSecret: e.PROCESSOR_SECRET,
    processorStatusFreshSeconds: e.PROCESSOR_STATUS_FRESH_SECONDS,
    x402SettleWaitSeconds: e.X402_SETTLE_WAIT_SECONDS,
    processorNoticesUrl: e.PROCESSOR_NOTICES_URL,
    processorPollMs: e.PROCESSOR_POLL_MS,
    explorers: { polygon: e.POLYGON_EXPLORER_URL, base: e.BASE_EXPLORER_URL, ethereum: e.ETHEREUM_EXPLORER_URL },
    logLevel: e.LOG_LEVEL,
    metrics: { port: e.METRICS_PORT, host: e.METRICS_HOST, token: e.METRICS_TOKEN === undefined ? undefined : new Secret(e.METRICS_TOKEN) },
    trustProxy: e.TRUST_PROXY === 'true',
    rateLimits: {
      enabled: e.RATE_LIMITS === 'on',
      businessPerMinute: e.RATE_LIMIT_BUSINESS_PER_MINUTE,
      agentPerMinute: e.RATE_LIMIT_AGENT_PER_MINUTE,
      sessionStartsPerMinute: e.RATE_LIMIT_SESSION_STARTS_PER_MINUTE,
      unauthenticatedPerMinute: e.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE,
      payerPagesPerMinute: e.RATE_LIMIT_PAYER_PAGES_PER_MINUTE,
      payerFormsPerMinute: e.RATE_LIMIT_PAYER_FORMS_PER_MINUTE,
      payerStartsPerMinute: e.RATE_LIMIT_PAYER_STARTS_PER_MINUTE,
      payerStartsPerVisitorPerMinute: e.RATE_LIMIT_PAYER_STARTS_PER_VISITOR_PER_MINUTE,
      testEventsPerMinute: e.RATE_LIMIT_TEST_EVENTS_PER_MINUTE,
    },
    webhooks: { timeoutMs: e.WEBHOOK_TIMEOUT_MS, concurrency: e.WEBHOOK_CONCURRENCY, endpointConcurrency: endpointConcurrency(e), testLoopback: e.WEBHOOK_TEST_LOOPBACK === 'on' },
    oauthIssuer: oauthIssuer(e.OAUTH_ISSUER, baseUrl),
    oidc: oidcConfig(e),
    providers: providersConfig(e),
    networks: networksConfig(env),
    processor: {
      seedFile: e.PROCESSOR_SEED_FILE === undefined ? undefined : path.resolve(e.PROCESSOR_SEED_FILE),
      feeWallet: e.PROCESSOR_FEE_WALLET?.toLowerCase() as `0x${string}` | undefined,
    },
    fxRates: { url: e.FX_RATES_URL === 'off' ? undefined : e.FX_RATES_URL, maxAgeHours: e.FX_RATES_MAX_AGE_HOURS },
    mail: { smtpUrl: e.SMTP_URL === undefined ? undefined : new Secret(e.SMTP_URL), from: e.SMTP_FROM ?? `Payment Service <no-reply@${new URL(baseUrl).hostname}>`, operatorEmail: e.OPERATOR_EMAIL?.toLowerCase() },
  };
}
