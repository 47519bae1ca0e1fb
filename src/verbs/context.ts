import type { Config } from '../core/config.ts';
import type { Db } from '../db/database.ts';
import type { Principal } from '../auth/principal.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { Clock } from '../core/clock.ts';
import type { JobSender } from '../jobs/queues.ts';
import type { DepositAddresses } from '../core/deposit-addresses.ts';
import type { OutboundClient } from '../net/outbound-client.ts';
import type { OwnPorts } from '../net/own-ports.ts';
import type { AccessTokens } from '../auth/access-tokens.ts';
import type { SigningKeys } from '../auth/signing-keys.ts';
import type { Metrics } from '../core/metrics.ts';
import type { RowWaits } from '../db/row-waits.ts';
import type { PaymentMailMakers } from '../mail/payment-mails.ts';

/** What every verb may use, built once per process. */
export interface AppContext {
  db: Db;
  clock: Clock;
  config: Config;
  secrets: SecretBox;
  /** Resolves a host name to its addresses (DNS); injectable so the address policy is testable. */
  resolveHost: (hostname: string) => Promise<string[]>;
  /** Whether credential-change notices arrive, so verified credentials may be cached. */
  authChanges: { readonly listening: boolean };
  /** Queues background work (webhook deliveries) inside the caller's transaction. */
  jobs: JobSender;
  /** Live deposit addresses, derived from the processor's extended public key. */
  deposits: DepositAddresses;
  /** The secret processor notices are signed with. */
  processorSecret: string;
  /** Sends webhook requests to vetted, pinned addresses. */
  outbound: OutboundClient;
  /** The service's own ports on this machine, which no webhook may target (its listeners add theirs as they bind). */
  ownPorts: OwnPorts;
  /** The keys that sign agents' access tokens, and the tokens themselves. */
  signingKeys: SigningKeys;
  accessTokens: AccessTokens;
  /** The process's Prometheus metrics: what verbs and workers count (deliveries, refusals). */
  metrics: Metrics;
  /** Callers waiting for a payment's status to change, woken by the process's notification listener. */
  paymentWaits: RowWaits;
  /** The words of a payment's receipt and held notices (the pages' catalogues), for the moves that send them. */
  paymentMails: PaymentMailMakers;
}

/** A verb's view of one call: the app plus the caller. */
export interface OperationContext extends AppContext {
  principal: Principal;
  /** Aborts when the caller goes away (given to operations that wait: a long poll, a cancelled tool call). */
  signal?: AbortSignal;
  /** The call's arguments as the caller sent them (REST's path, query or body and headers; a tool's arguments), for showing a person. */
  arguments?: Record<string, unknown>;
}
