import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

// Table types for Kysely, matching migrations/. Names stay snake_case: rows are never API objects.
type Timestamp = ColumnType<Date, Date, Date>;
type JsonText<T> = string | (null extends T ? null : never);
type Json<T> = ColumnType<T, JsonText<T>, JsonText<T>>;
/** A jsonb column with a database default. */
type JsonDefault<T> = ColumnType<T, JsonText<T> | undefined, JsonText<T>>;

/** An account's state: suspended and archived accounts are read, not changed (spec 7.2 merchant_read_only). */
export type AccountStatus = 'active' | 'suspended' | 'archived';

export interface BusinessesTable {
  id: string;
  name: string;
  status: Generated<AccountStatus>;
  commerce: Generated<'active' | 'paused'>;
  disabled_integrations: Generated<Integration[]>;
  payout_wallet: string | null;
  crypto_enabled: Generated<boolean>;
  fee_bps: Generated<number>;
  /** The pay button's background on the payer pages (#rrggbb, lower case); null: the service's own. */
  brand_color: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type Integration = 'api' | 'payment_links' | 'checkouts';

/** A business's logo (migrations/0033): the bytes and what was read of them when uploaded. */
export interface BusinessLogosTable {
  business_id: string;
  content_type: LogoContentType;
  byte_size: number;
  sha256: string;
  width: number;
  height: number;
  content: Buffer;
  created_at: Timestamp;
}
export type LogoContentType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

export interface PeopleTable {
  id: string;
  email: string;
  name: string | null;
  created_at: Timestamp;
  /** The IANA zone the person reads the dashboard's times in; null: UTC. */
  time_zone: ColumnType<string | null, string | null | undefined, string | null>;
}

export type Role = 'owner' | 'developer' | 'viewer';
export interface MembershipsTable {
  business_id: string;
  person_id: string;
  role: Role;
  created_at: Timestamp;
}

export type KeyKind = 'api' | 'plugin' | 'legacy';
export type KeyAccess = 'full' | 'read_only';
export interface ApiKeysTable {
  id: string;
  business_id: string;
  livemode: boolean;
  kind: KeyKind;
  access: KeyAccess;
  name: string | null;
  secret_hash: Buffer;
  secret_hint: string;
  created_by: string | null;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

export interface StoredAddress {
  name: string | null;
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string;
}

export interface StoreAccount {
  platform: string;
  store_id: string;
  store_name: string | null;
  customer_id: string;
}

export interface CustomersTable {
  id: string;
  business_id: string;
  livemode: boolean;
  email: string | null;
  name: string | null;
  phone: string | null;
  shipping_address: Json<StoredAddress | null>;
  billing_address: Json<StoredAddress | null>;
  store_accounts: JsonDefault<StoreAccount[]>;
  erased: Generated<boolean>;
  created_at: Timestamp;
  /** Creation time of the order the saved details came from (rule 3: the latest order wins). */
  details_at: Timestamp | null;
}

/** A customer's private note, for the dashboard only (never read by the API, MCP or webhooks). */
export interface CustomerNotesTable {
  customer_id: string;
  business_id: string;
  livemode: boolean;
  note: string;
  updated_at: Timestamp;
  /** The person who wrote it last. */
  updated_by: string | null;
}

export interface OrderNumbersTable {
  business_id: string;
  livemode: boolean;
  last_number: number;
}

export interface OrderItem {
  name: string;
  variant: string | null;
  sku: string | null;
  quantity: number;
  unit_amount_minor: number | null;
  amount_minor: number;
}

export type PaymentSource = 'api' | 'checkout' | 'payment_link';

/** The store an order came from (sessions sent with order.id). */
export interface StoreInfo {
  platform: string | null;
  id: string | null;
  name: string | null;
  url: string | null;
  order_id: string;
  order_number: string | null;
  order_url: string | null;
  customer_id: string | null;
}
export interface OrdersTable {
  id: string;
  business_id: string;
  livemode: boolean;
  number: number;
  customer_id: string | null;
  source: PaymentSource;
  checkout_id: string | null;
  store: Json<StoreInfo | null>;
  status: Generated<string>;
  fulfillment: Generated<'none' | 'unfulfilled' | 'fulfilled'>;
  fulfilled_at: Timestamp | null;
  currency: string;
  subtotal_minor: number;
  discount_minor: Generated<number>;
  discount_code: string | null;
  shipping_minor: Generated<number>;
  shipping_method: string | null;
  tax_minor: Generated<number>;
  total_minor: number;
  customer_name: string | null;
  customer_phone: string | null;
  ship_to: Json<StoredAddress | null>;
  bill_to: Json<StoredAddress | null>;
  items: JsonDefault<OrderItem[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
  paid_at: Timestamp | null;
  store_order_key: string | null;
  store_customer_id: string | null;
}

export type PaymentStatus = 'open' | 'pending' | 'paid' | 'held' | 'failed' | 'expired';
export interface PaymentsTable {
  id: string;
  /** A payment link's tracking page address (`trk_…`): not the id, which opens the payer page. Null for other payments. */
  tracking_token: string | null;
  business_id: string;
  livemode: boolean;
  source: PaymentSource;
  order_id: string | null;
  checkout_id: string | null;
  status: Generated<PaymentStatus>;
  amount_minor: number;
  currency: string;
  description: string;
  reference: string | null;
  /** Merchant metadata: keys to strings, numbers, booleans or null (checked on the way in). */
  metadata: Json<Record<string, string | number | boolean | null> | null>;
  customer_email: string | null;
  customer_name: string | null;
  memo: string | null;
  success_url: string | null;
  collect: Json<Record<string, boolean> | null>;
  created_at: Timestamp;
  expires_at: Timestamp;
  started_at: Timestamp | null;
  provider_reached_at: Timestamp | null;
  paid_at: Timestamp | null;
  canceled_at: Timestamp | null;
  routing: Json<Routing | null>;
  provider: string | null;
  provider_name: string | null;
  method: Generated<'card' | 'crypto'>;
  network: string | null;
  deposit_address: string | null;
  /** The deposit address's BIP-32 child index (migration 0027); null in Test and for older payments. */
  deposit_index: number | null;
  payout_wallet: string | null;
  fee_bps: number | null;
  usd_value_minor: number | null;
  /** numeric(30,6): read as a decimal string. */
  value_coin: string | null;
  coin: string | null;
  merchant_received: string | null;
  received_minor: number | null;
  hold_reason: string | null;
  hold_acceptable: Generated<boolean>;
  txid_in: string | null;
  /** The log of txid_in that paid it (migration 0042: an arrival is a transfer); null when not reported. */
  txid_in_log_index: ColumnType<number | null, number | null | undefined, number | null>;
  txid_out: string | null;
  /** What reached the payout wallet for it, whatever its state: the sum of its ledger's forward_net rows (migration 0042). */
  forwarded_net: ColumnType<string | null, string | null | undefined, string | null>;
  plan_label: string | null;
  /** The payer page's language when the buyer started ('en', 'de'; migration 0034); null: English. */
  payer_language: string | null;
  /** The held underpaid payment whose rest this payment asks for (migration 0035, docs/remainders.md); null for others. */
  remainder_of: string | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface Routing {
  choice: 'smart' | 'buyer' | 'fixed';
  provider: string | null;
  fallback: boolean;
}

export interface CheckoutsTable {
  id: string;
  business_id: string;
  livemode: boolean;
  kind: 'page' | 'pricing_table' | 'widget';
  slug: string;
  active: Generated<boolean>;
  name: string;
  description: string | null;
  amount_minor: number;
  currency: string;
  success_url: string | null;
  theme: 'light' | 'dark';
  button_label: string | null;
  crypto: boolean;
  routing: Json<Routing>;
  collect: Json<Record<string, boolean> | null>;
  options: Json<string[] | null>;
  plans: JsonDefault<unknown[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookEndpointsTable {
  id: string;
  business_id: string;
  livemode: boolean;
  url: string;
  description: string | null;
  events: string[];
  secret_encrypted: Buffer | null;
  previous_secret_encrypted: Buffer | null;
  previous_secret_expires_at: Timestamp | null;
  added_via: 'api' | 'dashboard';
  api_key_id: string | null;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
  events_edited_at: Timestamp | null;
}

export interface OrderTimelineTable {
  id: Generated<number>;
  order_id: string;
  type: 'canceled' | 'refunded';
  amount_minor: number | null;
  reason: string | null;
  actor: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  business_id: string;
  livemode: boolean;
  key: string;
  request_hash: Buffer;
  payment_id: string;
  created_at: Timestamp;
}

export interface EventsTable {
  id: string;
  business_id: string;
  livemode: boolean;
  type: string;
  payment_id: string | null;
  order_id: string | null;
  customer_id: string | null;
  body: string;
  created_at: Timestamp;
  seq: Generated<number>;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  last_attempt_at: Timestamp | null;
  last_status: number | null;
  last_error: string | null;
  created_at: Timestamp;
  finished_at: Timestamp | null;
  kind: Generated<DeliveryKind>;
  /** A test send's event type and exact body; an event's are in events. */
  event_type: string | null;
  body: string | null;
  manual_attempts: Generated<number>;
  /** From a sequence; null on rows older than the column. */
  seq: ColumnType<number | null, never, never>;
  /** How many erasures rewrote its event's body (migration 0022). */
  erasures: Generated<number>;
}

export type DeliveryKind = 'event' | 'test';
export type AttemptTrigger = 'automatic' | 'retry_now' | 'resend' | 'test';
export interface WebhookDeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  endpoint_id: string;
  trigger: AttemptTrigger;
  /** The automatic attempt's number, 1 to 7; null for the manual ones. */
  number: number | null;
  url: string;
  sent_at: Timestamp;
  duration_ms: number;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export type ReplayStatus = 'queued' | 'running' | 'done';
/** A replay of an endpoint's failed deliveries (migration 0017), sent by a background job. */
export interface WebhookReplaysTable {
  id: Generated<number>;
  business_id: string;
  livemode: boolean;
  endpoint_id: string;
  since: Timestamp;
  requested_by: string;
  status: Generated<ReplayStatus>;
  total: number;
  done: Generated<number>;
  succeeded: Generated<number>;
  skipped: Generated<number>;
  created_at: Timestamp;
  finished_at: Timestamp | null;
}

export type ReplayOutcome = 'succeeded' | 'failed' | 'skipped';
export interface WebhookReplayDeliveriesTable {
  replay_id: number;
  position: number;
  delivery_id: string;
  claimed_at: Timestamp | null;
  outcome: ReplayOutcome | null;
}

export interface ProcessorNoticesTable {
  id: Generated<number>;
  notice_id: string | null;
  kind: string | null;
  payment_id: string | null;
  outcome: 'applied' | 'duplicate' | 'rejected';
  reason: string | null;
  /** The notice as received; null for one refused before its signature was verified. */
  body: string | null;
  body_sha256: string | null;
  body_length: number | null;
  received_at: Timestamp;
}

/** A buyer's EIP-3009 authorization taken over HTTP 402 (migration 0049, docs/x402.md). */
export interface X402AuthorizationsTable {
  id: string;
  payment_id: string;
  business_id: string;
  livemode: boolean;
  network: string;
  asset: string;
  payer: string;
  pay_to: string;
  value: string;
  valid_after: string;
  valid_before: string;
  nonce: string;
  signature: string;
  state: 'verified' | 'submitted' | 'settled' | 'refused';
  reason: string | null;
  tx_hash: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ChainMovementKind = 'deposit' | 'forward_net' | 'forward_fee' | 'gas_top_up' | 'sweep' | 'x402_gas';
export type DepositDisposition = 'paid' | 'held' | 'extra';

/** One on-chain movement of a payment's money (migration 0042): the service's books of Live money. */
export interface ChainMovementsTable {
  id: string;
  business_id: string;
  livemode: boolean;
  payment_id: string;
  kind: ChainMovementKind;
  network: string;
  tx_hash: string;
  log_index: number | null;
  block_number: ColumnType<number | null, number | null, number | null>;
  from_address: string;
  to_address: string;
  token: string | null;
  coin: string;
  /** Base units (numeric(78, 0) as PostgreSQL writes it), of a coin with `decimals`. */
  value: string;
  decimals: number;
  deposit_tx_hash: string | null;
  deposit_log_index: number | null;
  disposition: DepositDisposition | null;
  needs_review: Generated<boolean>;
  recorded_at: Timestamp;
}
export type ChainMovementRow = Selectable<ChainMovementsTable>;

/** The processor's latest report on one network (migration 0025, processor.status notices). */
export interface ProcessorNetworksTable {
  network: 'polygon' | 'base' | 'ethereum';
  chain_id: number;
  coins: string[];
  healthy: boolean;
  /** Null while the processor has not scanned the network yet. */
  head_block: number | null;
  final_block: number | null;
  cursor_block: number | null;
  problem: string | null;
  reported_at: Timestamp;
  received_at: Timestamp;
  notice_id: string;
  /** How forwarding goes on it (migration 0045); null when the processor said nothing of forwarding. */
  forwarding_healthy: boolean | null;
  forwarding_problem: string | null;
}

/** A forward the latest status of its network named as failed, or pending past the bound (migration 0045). */
export interface ProcessorForwardDelaysTable {
  network: 'polygon' | 'base' | 'ethereum';
  payment_id: string;
  deposit_address: string;
  state: 'failed' | 'pending';
  since: Timestamp;
  reason: string | null;
}

/** When the operator was last mailed of a cause (network and kind of failure): at most once an hour (migration 0045). */
export interface OperatorAlertsTable {
  cause: string;
  mailed_at: Timestamp;
}

/** The feed's rate of each currency (migration 0026; the 0003 placeholders have no reference time). */
export interface FxRatesTable {
  currency: string;
  /** numeric: read as a decimal string. */
  usd_per_unit: string;
  /** When it was stored. */
  updated_at: Timestamp;
  /** The time the rate is of (the feed's reference day); null for a placeholder. */
  reference_at: Timestamp | null;
}

/** The operator's rate of a currency, winning over the feed's while set (migration 0026). */
export interface FxRateOverridesTable {
  currency: string;
  usd_per_unit: string;
  set_at: Timestamp;
}

/** The rate feed's last fetch and what came of it (migration 0026). */
export interface FxRateLastFetchTable {
  feed: string;
  url: string;
  fetched_at: Timestamp;
  ok: boolean;
  outcome: string;
}

/** A payout wallet change an owner asked for in the dashboard, waiting for their confirmation (migration 0023). */
export interface PayoutWalletChangesTable {
  business_id: string;
  person_id: string;
  /** The new address; null: no payout wallet. */
  payout_wallet: string | null;
  requested_at: Date;
}

export interface ActivityTable {
  id: Generated<number>;
  business_id: string;
  livemode: boolean;
  actor: string;
  action: string;
  subject_id: string | null;
  details: JsonDefault<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface OAuthSigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: Json<Record<string, unknown>>;
  private_jwk_encrypted: Buffer;
  created_at: Timestamp;
  retired_at: Timestamp | null;
}

export interface OAuthClientsTable {
  client_id: string;
  kind: 'registered' | 'metadata_document';
  client_name: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  redirect_uris: string[];
  application_type: 'web' | 'native';
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  scope: string | null;
  software_id: string | null;
  software_version: string | null;
  created_at: Timestamp;
  last_used_at: Timestamp;
  fetched_at: Timestamp | null;
}

export interface OAuthRequestsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  scopes: string[];
  created_at: Timestamp;
  expires_at: Timestamp;
  decided_at: Timestamp | null;
}

export interface AgentConnectionsTable {
  id: string;
  business_id: string;
  livemode: boolean;
  client_id: string;
  client_name: string | null;
  approved_by: string;
  access: KeyAccess;
  scopes: string[];
  resource: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  disconnected_at: Timestamp | null;
  disconnected_why: string | null;
  live_needs_approval: Generated<boolean>;
}

export interface AgentSpendLimitsTable {
  connection_id: string;
  currency: string;
  per_object_minor: number;
  per_day_minor: number;
}

export interface AgentSpendDaysTable {
  connection_id: string;
  day: string;
  currency: string;
  created_minor: number;
}

export type AgentApprovalStatus = 'pending' | 'approved' | 'declined' | 'withdrawn' | 'used';

export interface AgentApprovalsTable {
  id: string;
  business_id: string;
  livemode: boolean;
  connection_id: string;
  operation: string;
  arguments: Json<Record<string, unknown>>;
  arguments_hash: Buffer;
  /** What the call would create, resolved when it was asked for (migrations/0047); null for a call that creates no amount. */
  amount_minor: ColumnType<string | null, number | null | undefined, number | null>;
  currency: ColumnType<string | null, string | null | undefined, string | null>;
  reasons: string[];
  status: AgentApprovalStatus;
  created_at: Timestamp;
  expires_at: Timestamp;
  decided_by: string | null;
  decided_at: Timestamp | null;
  used_at: Timestamp | null;
}

export interface OAuthCodesTable {
  code_hash: Buffer;
  connection_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface OAuthRefreshTokensTable {
  token_hash: Buffer;
  connection_id: string;
  client_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  rotated_at: Timestamp | null;
}

export interface DashboardSessionsTable {
  id_hash: Buffer;
  person_id: string;
  csrf_token: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** A form's one-time notice to the page its redirect opens (migration 0015): sealed, read once. */
export interface DashboardNoticesTable {
  id: Generated<string>;
  session_id_hash: Buffer;
  place: string;
  body_sealed: Buffer;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface SignInLinksTable {
  token_hash: Buffer;
  person_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** A person's choice of the mail they get about one business (migration 0034); no row: the defaults. */
export interface NotificationPreferencesTable {
  person_id: string;
  business_id: string;
  held_payment_mail: boolean;
  updated_at: Timestamp;
}

export type MailKind = 'webhook_endpoint_added' | 'sign_in_link' | 'payout_wallet_changed' | 'payment_receipt' | 'payment_held' | 'payment_held_staff' | 'operator_alert';
/** held: written while SMTP_URL was unset (kept, never sent); queued: a job will send it. */
export type MailStatus = 'held' | 'queued' | 'sent' | 'failed';
/** Why a held mail is not sent (migrations/0048). */
export type MailHeldBecause = 'no_smtp' | 'test_mode' | 'address_limit';
export interface OutboxTable {
  id: string;
  business_id: string | null;
  kind: MailKind;
  recipient: string;
  subject: string;
  body: string | null;
  /** A body carrying a secret (a sign-in link), sealed; erased once sent or failed. */
  body_sealed: Buffer | null;
  /** The HTML alternative of `body` (migration 0034); null: text only. */
  body_html: string | null;
  /** The payment the mail is about (receipts, held notices): erasing its buyer deletes the mail. */
  payment_id: string | null;
  status: MailStatus;
  held_because: MailHeldBecause | null;
  attempts: Generated<number>;
  last_error: string | null;
  send_before: Timestamp | null;
  created_at: Timestamp;
  last_attempt_at: Timestamp | null;
  finished_at: Timestamp | null;
}

// The processor's own schema (migrations/0024): addresses, hashes and ids in lower case.
/** int8, read as a number (below 2^53 for any chain's height); written as a bigint or number. */
type BlockNumber = ColumnType<number, bigint | number, bigint | number>;
export interface ProcessorCursorsTable {
  network: string;
  chain_id: number;
  /** Every block before it has been scanned. */
  next_block: BlockNumber;
  updated_at: Timestamp;
}
export interface ProcessorBlocksTable {
  network: string;
  number: BlockNumber;
  hash: string;
  parent_hash: string;
}
export interface ProcessorWatchedAddressesTable {
  address: string;
  payment_id: string;
  watch_from: Timestamp;
  watch_until: Timestamp;
  /** The deposit address's BIP-32 child index; null for payments started before migration 0027 until found. */
  deposit_index: BlockNumber | null;
  /** Lowercase; the payout wallet fixed at the payment's start, null when it had none. */
  payout_wallet: string | null;
  fee_bps: number | null;
}
/** A deposit seen in a block not final yet (migration 0032), replaced each poll: the status's "waiting for finality". */
export interface ProcessorUnfinalDepositsTable {
  network: string;
  tx_hash: string;
  log_index: number;
  block_number: BlockNumber;
  token: string;
  to_address: string;
  value: ColumnType<string, string | bigint, string | bigint>;
  seen_at: Timestamp;
}
export type OutgoingNoticeKind = 'deposit.confirmed' | 'settlement.completed' | 'sweep.completed' | 'x402.submitted' | 'x402.refused' | 'x402.final';
export interface ProcessorNoticesOutTable {
  id: string;
  kind: OutgoingNoticeKind;
  body: Json<Record<string, unknown>>;
  state: Generated<'pending' | 'delivered' | 'refused'>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_answer: string | null;
  created_at: Timestamp;
  delivered_at: Timestamp | null;
}
export type TransferStatus = 'seen' | 'final' | 'removed';
export interface ProcessorTransfersTable {
  network: string;
  tx_hash: string;
  log_index: number;
  block_number: BlockNumber;
  block_hash: string;
  token: string;
  from_address: string;
  to_address: string;
  /** numeric(78,0): the token's base units, read as a string. */
  value: ColumnType<string, string | bigint, string | bigint>;
  status: TransferStatus;
  recorded_at: Timestamp;
  updated_at: Timestamp;
  /** The deposit.confirmed notice enqueued for this transfer once final (migration 0027). */
  confirmed_notice_id: Generated<string | null>;
}
/** numeric(78,0): a token's or the native coin's base units, read as a string. */
type BaseUnits = ColumnType<string, string | bigint, string | bigint>;
export type ForwardState = 'planned' | 'sending' | 'final' | 'failed' | 'canceled';
export type ForwardMethod = 'authorization' | 'top_up';
/** One forward per recorded transfer (migrations/0028). */
export interface ProcessorForwardsTable {
  id: Generated<number>;
  network: string;
  transfer_tx_hash: string;
  transfer_log_index: number;
  payment_id: string;
  deposit_address: string;
  deposit_index: BlockNumber;
  token: string;
  method: ForwardMethod;
  value: BaseUnits;
  fee_bps: number;
  net: BaseUnits;
  fee: BaseUnits;
  payout_wallet: string;
  fee_wallet: string;
  state: ForwardState;
  failure: string | null;
  attempts: Generated<number>;
  retry_at: Timestamp | null;
  txid_out: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Every movement verified in the receipts, once final (migrations/0043; read through verifiedMovements). */
  movements: JsonDefault<StoredMovement[] | null>;
}
/** One movement a receipt showed, as migrations/0043 stores it (src/processor/forwarding/movements.ts reads it). */
export interface StoredMovement {
  kind: 'net' | 'fee' | 'gas' | 'sweep';
  tx_hash: string;
  log_index: number | null;
  block_number: string;
  block_hash: string;
  from: string;
  to: string;
  /** null: the native coin (a gas top-up). */
  token: string | null;
  value: string;
}
export interface ProcessorSenderNoncesTable {
  network: string;
  address: string;
  kind: 'gas_wallet' | 'deposit';
  next_nonce: BlockNumber;
  updated_at: Timestamp;
}
export interface ProcessorGasWalletsTable {
  network: string;
  address: string;
  /** Wei; null until a pass read it. */
  balance: BaseUnits | null;
  low_below: BaseUnits | null;
  checked_at: Timestamp | null;
}
export type ForwardTransactionState = 'signed' | 'broadcast' | 'mined' | 'final' | 'reverted' | 'dropped' | 'ineffective';
export type ForwardShare = 'net' | 'fee';
export interface ProcessorForwardTransactionsTable {
  id: Generated<number>;
  forward_id: number;
  network: string;
  purpose: 'batch' | 'top_up' | 'share';
  shares: ForwardShare[];
  sender: string;
  nonce: BlockNumber;
  to_address: string;
  data: string;
  value: BaseUnits;
  gas: BlockNumber;
  max_fee_per_gas: BaseUnits;
  max_priority_fee_per_gas: BaseUnits | null;
  raw: string;
  tx_hash: string;
  replaced_hashes: Generated<string[]>;
  state: ForwardTransactionState;
  block_number: BlockNumber | null;
  block_hash: string | null;
  signed_at: Timestamp;
  broadcast_at: Timestamp | null;
  updated_at: Timestamp;
  /** Why an `ineffective` transaction did not count (migrations/0043). */
  failure: Generated<string | null>;
  /** What its receipt showed, verified (migrations/0043). */
  movements: JsonDefault<StoredMovement[] | null>;
}

/** A buyer's x402 authorization as the processor submits it (migration 0050). */
export type X402SubmissionState = 'refused' | 'signed' | 'broadcast' | 'mined' | 'closing' | 'final' | 'failed';
export interface ProcessorX402SubmissionsTable {
  id: Generated<number>;
  authorization_id: string;
  payment_id: string;
  network: string;
  token: string;
  payer: string;
  pay_to: string;
  value: BaseUnits;
  valid_before: BaseUnits;
  state: X402SubmissionState;
  failure: string | null;
  reason: string | null;
  sender: string | null;
  nonce: BlockNumber | null;
  gas: BlockNumber | null;
  max_fee_per_gas: BaseUnits | null;
  max_priority_fee_per_gas: BaseUnits | null;
  raw: string | null;
  tx_hash: string | null;
  replaced_hashes: Generated<string[]>;
  block_number: BlockNumber | null;
  block_hash: string | null;
  signed_block: BlockNumber | null;
  authorization_nonce: string;
  gas_cost: BaseUnits | null;
  transfer_log_index: number | null;
  /** migrations/0051: the transaction not the processor's that carried the authorization. */
  carried_by: string | null;
  created_at: Timestamp;
  broadcast_at: Timestamp | null;
  updated_at: Timestamp;
}

// migrations/0029: what each network's scans saw, transfers out of watched addresses, reconciliation findings.
/** int8 counts, read as strings by node-postgres. */
type Count = ColumnType<string, bigint | number | undefined, bigint | number>;
export interface ProcessorNetworkScansTable {
  network: string;
  head_block: BlockNumber | null;
  final_block: BlockNumber | null;
  /** When head_block and final_block were read. */
  observed_at: Timestamp | null;
  /** When a scan last reached the final block it read. */
  scanned_at: Timestamp | null;
  last_error: string | null;
  last_error_at: Timestamp | null;
  scan_errors: Count;
  transfers_recorded: Count;
  reconciled_at: Timestamp | null;
  reconciled_block: BlockNumber | null;
}
/** As a deposit's row, for a transfer out of a watched address (never `seen`). */
export type ProcessorOutgoingTransfersTable = Omit<ProcessorTransfersTable, 'status'> & { status: 'final' | 'removed' };
export interface ProcessorBalanceFindingsTable {
  network: string;
  address: string;
  token: string;
  block_number: BlockNumber;
  balance: ColumnType<string, string | bigint, string | bigint>;
  expected: ColumnType<string, string | bigint, string | bigint>;
  recovered: number;
  outcome: 'recovered' | 'unexplained';
  found_at: Timestamp;
}
/** A stray token swept from a deposit address by `processor sweep` (migrations/0031). */
export interface ProcessorSweepsTable {
  id: Generated<number>;
  network: string;
  deposit_address: string;
  deposit_index: BlockNumber;
  payment_id: string;
  token: string;
  amount: BaseUnits;
  destination: 'merchant' | 'operator';
  to_address: string;
  state: 'planned' | 'sending' | 'mined' | 'failed';
  failure: string | null;
  top_up_nonce: BlockNumber | null;
  top_up_value: BaseUnits | null;
  top_up_raw: string | null;
  top_up_hash: string | null;
  transfer_nonce: BlockNumber | null;
  gas: BlockNumber | null;
  gas_price: BaseUnits | null;
  transfer_raw: string | null;
  transfer_hash: string | null;
  block_number: BlockNumber | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The top-up and the transfer as their receipts showed them, once mined (migrations/0043). */
  movements: JsonDefault<StoredMovement[] | null>;
  /** When its `sweep.completed` notice was enqueued, once final (migrations/0046). */
  reported_at: Timestamp | null;
}

export interface Database {
  'processor.cursors': ProcessorCursorsTable;
  'processor.network_scans': ProcessorNetworkScansTable;
  'processor.outgoing_transfers': ProcessorOutgoingTransfersTable;
  'processor.balance_findings': ProcessorBalanceFindingsTable;
  'processor.blocks': ProcessorBlocksTable;
  'processor.watched_addresses': ProcessorWatchedAddressesTable;
  'processor.transfers': ProcessorTransfersTable;
  'processor.forwards': ProcessorForwardsTable;
  'processor.sender_nonces': ProcessorSenderNoncesTable;
  'processor.forward_transactions': ProcessorForwardTransactionsTable;
  'processor.x402_submissions': ProcessorX402SubmissionsTable;
  'processor.gas_wallets': ProcessorGasWalletsTable;
  'processor.sweeps': ProcessorSweepsTable;
  'processor.notices_out': ProcessorNoticesOutTable;
  'processor.unfinal_deposits': ProcessorUnfinalDepositsTable;
  outbox: OutboxTable;
  payout_wallet_changes: PayoutWalletChangesTable;
  oauth_signing_keys: OAuthSigningKeysTable;
  oauth_clients: OAuthClientsTable;
  oauth_requests: OAuthRequestsTable;
  agent_connections: AgentConnectionsTable;
  agent_spend_limits: AgentSpendLimitsTable;
  agent_spend_days: AgentSpendDaysTable;
  agent_approvals: AgentApprovalsTable;
  oauth_codes: OAuthCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  dashboard_sessions: DashboardSessionsTable;
  dashboard_notices: DashboardNoticesTable;
  sign_in_links: SignInLinksTable;
  activity: ActivityTable;
  order_timeline: OrderTimelineTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  webhook_replays: WebhookReplaysTable;
  webhook_replay_deliveries: WebhookReplayDeliveriesTable;
  processor_notices: ProcessorNoticesTable;
  x402_authorizations: X402AuthorizationsTable;
  chain_movements: ChainMovementsTable;
  processor_networks: ProcessorNetworksTable;
  processor_forward_delays: ProcessorForwardDelaysTable;
  operator_alerts: OperatorAlertsTable;
  fx_rates: FxRatesTable;
  fx_rate_overrides: FxRateOverridesTable;
  fx_rate_last_fetch: FxRateLastFetchTable;
  businesses: BusinessesTable;
  business_logos: BusinessLogosTable;
  people: PeopleTable;
  memberships: MembershipsTable;
  notification_preferences: NotificationPreferencesTable;
  api_keys: ApiKeysTable;
  customers: CustomersTable;
  customer_notes: CustomerNotesTable;
  order_numbers: OrderNumbersTable;
  orders: OrdersTable;
  payments: PaymentsTable;
  checkouts: CheckoutsTable;
  webhook_endpoints: WebhookEndpointsTable;
}

export type BusinessRow = Selectable<BusinessesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type CustomerRow = Selectable<CustomersTable>;
export type OrderRow = Selectable<OrdersTable>;
export type PaymentRow = Selectable<PaymentsTable>;
export type NewPayment = Insertable<PaymentsTable>;
export type CheckoutRow = Selectable<CheckoutsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type EventRow = Selectable<EventsTable>;
export type OrderTimelineRow = Selectable<OrderTimelineTable>;
export type OAuthClientRow = Selectable<OAuthClientsTable>;
export type AgentConnectionRow = Selectable<AgentConnectionsTable>;
export type BusinessUpdate = Updateable<BusinessesTable>;
export type OutboxRow = Selectable<OutboxTable>;
