// What erasing a customer (spec 2.3 rule 7) does to every text and json column of the app's
// tables. The erasure reads and writes the columns this declares, and
// test/resources/erasure-columns.test.ts holds the declaration to the database: a column or
// table a migration adds fails that test until it is declared here, scrubbed or kept on purpose.

/**
 * - `detail`: a contact detail of the customer itself, null on its own rows (text)
 * - `address`: an address of the customer, null on its own rows (jsonb)
 * - `text`: free text; the details in it become [erased] (text)
 * - `json`: every string in it is free text (jsonb)
 * - `metadata`: as json, and a value that was nothing but a detail becomes null (jsonb)
 * - `event`: a stored webhook body (scrub.ts: the snapshots' detail fields null, the rest free text)
 * - `deleted`: the row goes (a private note always; a key when it holds a detail, since it cannot be rewritten)
 * - `kept`: never holds a customer's detail: ids, states, codes, service-made words
 */
export type Treatment = 'detail' | 'address' | 'text' | 'json' | 'metadata' | 'event' | 'deleted' | 'kept';

export const CUSTOMER_DATA_COLUMNS = {
  customers: {
    id: 'kept', business_id: 'kept',
    email: 'detail', name: 'detail', phone: 'detail', shipping_address: 'address', billing_address: 'address',
    store_accounts: 'json',
  },
  customer_notes: { customer_id: 'kept', business_id: 'kept', updated_by: 'kept', note: 'deleted' },
  orders: {
    id: 'kept', business_id: 'kept', customer_id: 'kept', source: 'kept', checkout_id: 'kept', status: 'kept', fulfillment: 'kept', currency: 'kept',
    customer_name: 'detail', customer_phone: 'detail', ship_to: 'address', bill_to: 'address',
    discount_code: 'text', shipping_method: 'text', store_order_key: 'text', store_customer_id: 'text',
    store: 'json', items: 'json',
  },
  payments: {
    id: 'kept', tracking_token: 'kept', business_id: 'kept', source: 'kept', order_id: 'kept', checkout_id: 'kept', status: 'kept', currency: 'kept',
    method: 'kept', provider: 'kept', provider_name: 'kept', network: 'kept', deposit_address: 'kept', payout_wallet: 'kept', coin: 'kept',
    txid_in: 'kept', txid_out: 'kept', hold_reason: 'kept', remainder_of: 'kept',
    // The payer page's asks (flags under fixed names) and the routing chosen: no free text.
    collect: 'kept', routing: 'kept',
    customer_email: 'detail', customer_name: 'detail',
    description: 'text', reference: 'text', memo: 'text', success_url: 'text', plan_label: 'text',
    metadata: 'metadata',
    // The payer page's language: the buyer's, so it goes with their details.
    payer_language: 'detail',
  },
  // Mail about one of the customer's payments (receipts, held notices, the staff's held mail)
  // goes: its recipient, subject and bodies name the buyer and what they bought. Other mail
  // (payment_id null) is to the merchant's people and never names a buyer.
  outbox: {
    id: 'kept', business_id: 'kept', kind: 'kept', status: 'kept', held_because: 'kept', last_error: 'kept', payment_id: 'kept',
    recipient: 'deleted', subject: 'deleted', body: 'deleted', body_html: 'deleted',
  },
  events: { id: 'kept', business_id: 'kept', type: 'kept', payment_id: 'kept', order_id: 'kept', customer_id: 'kept', body: 'event' },
  // What an endpoint answered is whatever it chose to say: a receiver that echoes the request
  // echoes the customer. The error is the service's own words about the connection.
  webhook_delivery_attempts: {
    delivery_id: 'kept', endpoint_id: 'kept', trigger: 'kept', url: 'kept', error: 'kept', response_excerpt: 'text',
  },
  // A delivery's own body is a test send's sample (webhooks/samples.ts), never a customer's; an
  // event's body is in events.
  webhook_deliveries: { id: 'kept', event_id: 'kept', endpoint_id: 'kept', status: 'kept', last_error: 'kept', kind: 'kept', event_type: 'kept', body: 'kept' },
  // The account activity of the customer, its orders and payments (a held payment's acceptance
  // carries service-made words today; the details are free text so a later entry is covered).
  activity: { business_id: 'kept', actor: 'kept', action: 'kept', subject_id: 'kept', details: 'json' },
  // A refund's or cancellation's reason, as the store reported it.
  order_timeline: { order_id: 'kept', type: 'kept', actor: 'kept', reason: 'text' },
  // A merchant may put the email in an Idempotency-Key: the key cannot be rewritten (a retry
  // would no longer match), so it goes, as it would after 24 hours.
  idempotency_keys: { business_id: 'kept', payment_id: 'kept', key: 'deleted' },
  // What an agent asked a person to approve, as it sent it: a checkout session's customer among
  // it. The hash binding the approval is of the arguments as checked, and stays.
  agent_approvals: {
    id: 'kept', business_id: 'kept', connection_id: 'kept', operation: 'kept', status: 'kept', decided_by: 'kept', reasons: 'kept', currency: 'kept',
    arguments: 'json',
  },
} as const satisfies Record<string, Record<string, Treatment>>;

export type CustomerDataTable = keyof typeof CUSTOMER_DATA_COLUMNS;

/** Tables that never hold a customer's details, and why. */
export const TABLES_WITHOUT_CUSTOMER_DATA: Readonly<Record<string, string>> = {
  businesses: 'the merchant account',
  business_logos: 'the merchant\'s logo image and what was read of it',
  people: 'the merchant\'s people (their sign-in emails), not buyers',
  memberships: 'who of the merchant\'s people has which role',
  api_keys: 'the merchant\'s keys and their names',
  checkouts: 'the merchant\'s products and pages, shared by every buyer',
  webhook_endpoints: 'the merchant\'s endpoint addresses and labels',
  webhook_replays: 'a replay request: endpoint, time, counts',
  webhook_replay_deliveries: 'delivery ids and outcomes of a replay',
  processor_notices: 'the processor\'s signed notices: deposit address, coin, amounts, transactions',
  processor_networks: 'the processor\'s latest report per network: coins, blocks, health',
  processor_forward_delays: 'forwards the processor reports failed or late: payment, deposit address, reason',
  operator_alerts: 'when the operator was last mailed of a processor trouble, per network and cause',
  chain_movements: 'the books: on-chain transfers of a payment\'s money (transactions, wallet addresses, amounts)',
  x402_authorizations: 'a payment\'s x402 authorization: wallet addresses, amount, nonce, signature (a transfer\'s own terms, as the chain keeps them)',
  fx_rates: 'exchange rates',
  fx_rate_overrides: 'the operator\'s exchange rates',
  fx_rate_last_fetch: 'the rate feed\'s address and its last fetch\'s outcome, in the service\'s words',
  order_numbers: 'the last order number per mode',
  notification_preferences: 'which mail each of the merchant\'s people gets',
  payout_wallet_changes: 'an owner\'s payout wallet change waiting for their confirmation',
  oauth_signing_keys: 'the service\'s token signing keys',
  oauth_clients: 'AI agents\' client registrations',
  oauth_requests: 'pending agent authorizations',
  oauth_codes: 'agent authorization codes (hashed)',
  oauth_refresh_tokens: 'agent refresh tokens (hashed)',
  agent_connections: 'agents a person approved',
  agent_spend_limits: 'what each connected agent may create, per currency',
  agent_spend_days: 'what each connected agent created per day and currency',
  dashboard_sessions: 'people\'s dashboard sessions',
  dashboard_notices: 'a form\'s one-time notice, sealed (the erase form\'s names no detail)',
  sign_in_links: 'people\'s sign-in links (hashed)',
  kysely_migration: 'applied migration names',
  kysely_migration_lock: 'the migrator\'s lock',
  // The processor's own schema (migrations/0024): chain data, which names no buyer.
  'processor.cursors': 'where each network\'s scan resumes',
  'processor.blocks': 'recent block hashes of each network',
  'processor.watched_addresses': 'deposit addresses and their payments\' ids and watch windows',
  'processor.transfers': 'token transfers to deposit addresses: addresses, amounts, transactions',
  'processor.forwards': 'each deposit\'s forward: addresses, amounts, state and the reason it failed (service-made words)',
  'processor.sender_nonces': 'the next nonce of each account the processor sends from',
  'processor.forward_transactions': 'the forwards\' signed transactions: raw bytes, hashes, nonces, fees',
  'processor.x402_submissions': 'buyers\' x402 authorizations as the processor submits them: wallet addresses, amounts, the signed transaction, the protocol\'s refusal reason (a transfer\'s own terms, as the chain keeps them)',
  'processor.gas_wallets': 'each network\'s gas wallet address and the balance last seen',
  'processor.unfinal_deposits': 'deposits seen in blocks not final yet: addresses, amounts, transactions',
  'processor.notices_out': 'the signed notices the processor sends: deposit addresses, amounts, transactions',
  // migrations/0029: the processor's operating state.
  'processor.network_scans': 'each network\'s last scan: blocks, times, counts, the RPC error it met',
  'processor.outgoing_transfers': 'token transfers out of deposit addresses: addresses, amounts, transactions',
  'processor.balance_findings': 'deposit addresses\' balances the recorded transfers did not explain',
  // migrations/0031: `processor sweep`.
  'processor.sweeps': 'stray tokens swept from deposit addresses: addresses, amounts, signed transactions, the reason one failed (service-made words)',
};

type Columns<T extends CustomerDataTable> = keyof (typeof CUSTOMER_DATA_COLUMNS)[T] & string;

/** The columns of `table` the erasure rewrites, by treatment. */
export function columnsOf<T extends CustomerDataTable>(table: T, ...treatments: Treatment[]): Array<Columns<T>> {
  const columns = CUSTOMER_DATA_COLUMNS[table] as Record<string, Treatment>;
  return Object.keys(columns).filter((column) => treatments.includes(columns[column]!)) as Array<Columns<T>>;
}
