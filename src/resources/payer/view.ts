import type { Principal } from '../../auth/principal.ts';
import { sql, type ExpressionBuilder, type Nullable, type RawBuilder } from 'kysely';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import type { Db } from '../../db/database.ts';
import { template } from '../../db/template.ts';
import type { Database, OrderItem, PaymentSource, PaymentStatus, Routing, StoredAddress } from '../../db/schema.ts';
import type { BusinessState } from '../../tenancy/businesses.ts';
import { readStatus } from '../shared/payment-status.ts';
import type { Brand } from '../brand/queries.ts';

// What a buyer holding a payment's payer page address may see of it, read in one statement: the
// payment as it reads now, its order's lines and totals, the business's name and state, and the
// checkout it buys. Never the customer's saved details, other payments, or the merchant's keys.

export interface PayerView {
  id: string;
  livemode: boolean;
  source: PaymentSource;
  status: PaymentStatus;
  amountMinor: number;
  currency: string;
  description: string;
  /** Pricing tables: the plan, option and price the buyer chose. */
  planLabel: string | null;
  /** Payment links: the note to the payer, and who the link is for. */
  memo: string | null;
  customerName: string | null;
  /** The name and phone on the order (what the buyer gave when starting), for the details form when they go back to it. */
  given: { name: string | null; phone: string | null };
  /** The email the merchant gave for this payment (the page prefills it), or the buyer gave when starting. */
  customerEmail: string | null;
  collect: Record<string, boolean> | null;
  successUrl: string | null;
  reference: string | null;
  createdAt: Date;
  expiresAt: Date;
  startedAt: Date | null;
  paidAt: Date | null;
  canceledAt: Date | null;
  depositAddress: string | null;
  /** The order's value in USD cents, locked when the buyer started. */
  usdValueMinor: number | null;
  provider: string | null;
  providerName: string | null;
  /** A held payment: what arrived, in the payment's currency (part of it for an underpayment), and in the coin, six decimals. */
  receivedMinor: number | null;
  valueCoin: string | null;
  /** The latest payment the merchant asked for the rest of this one on (docs/remainders.md), as it reads now; null when none. */
  remainder: { id: string; amountMinor: number; status: PaymentStatus } | null;
  /** Whether this payment is itself the rest of an earlier one on its order. */
  paysRest: boolean;
  order: {
    items: OrderItem[];
    subtotalMinor: number;
    discountMinor: number;
    shippingMinor: number;
    taxMinor: number;
    totalMinor: number;
    shipTo: StoredAddress | null;
    billTo: StoredAddress | null;
  } | null;
  business: BusinessState;
  /** The business's brand colour and logo hash, read with its name (never the logo's bytes). */
  brand: Brand;
  checkout: { id: string; slug: string; name: string; theme: 'light' | 'dark'; buttonLabel: string | null; crypto: boolean; active: boolean } | null;
  /** The routing the buyer's card providers are chosen by: the checkout's, the session's, or smart. */
  routing: Routing;
}

const SMART: Routing = { choice: 'smart', provider: null, fallback: false };

/**
 * What a payment link's tracking page shows (spec 2.1 tracking_url): its status, amount, what it
 * is for and its times. Nothing of the payer, and not the payment's id (which opens the payer page).
 */
export type TrackingView = Pick<PayerView, 'livemode' | 'status' | 'amountMinor' | 'currency' | 'description' | 'createdAt' | 'expiresAt' | 'paidAt' | 'canceledAt' | 'receivedMinor'>
  & { business: Pick<BusinessState, 'id' | 'name'>; brand: Brand };

/** A payment found by its id (the payer page), or a payment link by its tracking token. */
export type PayerLookup = { id: string } | { trackingToken: string };

// The row comes as one JSON text that PostgreSQL builds: one field for the driver to describe and
// parse instead of some sixty, and the text itself names what the page shows (payerViewKey), so a
// kept page is found without serializing the view again.

/** The tables of the view's one statement, by their aliases (the left-joined ones may be absent). */
type ViewTables = Database & {
  p: Database['payments']; b: Database['businesses']; o: Nullable<Database['orders']>; bl: Nullable<Database['business_logos']>;
};

/** The view's JSON (json_build_object takes at most 100 arguments: so an object per table). */
function viewJson(eb: ExpressionBuilder<ViewTables, 'p' | 'b' | 'o' | 'bl'>) {
  const { ref } = eb;
  return jsonBuildObject({
    p: jsonBuildObject({
      id: ref('p.id'), business_id: ref('p.business_id'), livemode: ref('p.livemode'), source: ref('p.source'), status: ref('p.status'),
      amount_minor: ref('p.amount_minor'), currency: ref('p.currency'), description: ref('p.description'), memo: ref('p.memo'),
      customer_name: ref('p.customer_name'), customer_email: ref('p.customer_email'), collect: ref('p.collect'), success_url: ref('p.success_url'),
      reference: ref('p.reference'), created_at: ref('p.created_at'), expires_at: ref('p.expires_at'), started_at: ref('p.started_at'),
      paid_at: ref('p.paid_at'), canceled_at: ref('p.canceled_at'), deposit_address: ref('p.deposit_address'), usd_value_minor: ref('p.usd_value_minor'),
      provider: ref('p.provider'), provider_name: ref('p.provider_name'), routing: ref('p.routing'), received_minor: ref('p.received_minor'),
      value_coin: ref('p.value_coin'), remainder_of: ref('p.remainder_of'), plan_label: ref('p.plan_label'),
    }),
    o: jsonBuildObject({
      customer_name: ref('o.customer_name'), customer_phone: ref('o.customer_phone'), items: ref('o.items'), subtotal_minor: ref('o.subtotal_minor'),
      discount_minor: ref('o.discount_minor'), shipping_minor: ref('o.shipping_minor'), tax_minor: ref('o.tax_minor'), total_minor: ref('o.total_minor'),
      ship_to: ref('o.ship_to'), bill_to: ref('o.bill_to'),
    }),
    // The checkout bought, looked up only for a payment that has one (most have none: a join would
    // open the table for every page).
    c: eb.case().when('p.checkout_id', 'is not', null).then(eb.selectFrom('checkouts as c')
      .select((c) => jsonBuildObject({
        id: c.ref('c.id'), slug: c.ref('c.slug'), name: c.ref('c.name'), theme: c.ref('c.theme'), button_label: c.ref('c.button_label'),
        crypto: c.ref('c.crypto'), active: c.ref('c.active'), routing: c.ref('c.routing'),
      }).as('j'))
      .whereRef('c.id', '=', 'p.checkout_id').$asScalar()).end(),
    b: jsonBuildObject({
      name: ref('b.name'), status: ref('b.status'), commerce: ref('b.commerce'), disabled_integrations: ref('b.disabled_integrations'),
      payout_wallet: ref('b.payout_wallet'), crypto_enabled: ref('b.crypto_enabled'), fee_bps: ref('b.fee_bps'), brand_color: ref('b.brand_color'),
      logo_sha256: ref('bl.sha256'),
    }),
    // The rest asked for this payment (an index lookup: payments_one_remainder's column), which only
    // a held payment can have (docs/remainders.md: it stays held), so looked up only then.
    remainder: eb.case().when('p.status', '=', 'held').then(eb.selectFrom('payments as r')
      .select((r) => jsonBuildObject({ id: r.ref('r.id'), amount_minor: r.ref('r.amount_minor'), status: r.ref('r.status'), expires_at: r.ref('r.expires_at') }).as('j'))
      .whereRef('r.remainder_of', '=', 'p.id').orderBy('r.created_at', 'desc').limit(1).$asScalar()).end(),
  });
}

/** The row as the JSON holds it: times as ISO text, a table not joined all nulls. */
type ViewRow = ReturnType<typeof viewJson> extends RawBuilder<infer R> ? R : never;

// Built once per lookup (by id, by tracking token): the page is read on every load and poll.
const payerViewQuery = template((db: Db, a: { key: string }, by: 'id' | 'tracking_token') => db
  .selectFrom('payments as p')
  .innerJoin('businesses as b', 'b.id', 'p.business_id')
  .leftJoin('orders as o', 'o.id', 'p.order_id')
  .leftJoin('business_logos as bl', 'bl.business_id', 'p.business_id')
  .select((eb) => sql<string>`${viewJson(eb)}::text`.as('row'))
  .where(by === 'id' ? 'p.id' : 'p.tracking_token', '=', a.key), (by) => by);

/** What each view was read from (its JSON text), for payerViewKey. */
const readFrom = new WeakMap<PayerView, string>();

/**
 * A text naming everything the view holds: the row it was read from and what `now` made of it
 * (the statuses), or the view as JSON when it was not read here.
 */
export function payerViewKey(view: PayerView): string {
  const row = readFrom.get(view);
  return row === undefined ? JSON.stringify(view) : `${view.status}\u0000${view.remainder?.status ?? ''}\u0000${row}`;
}

/** The payer's view of a payment, as it reads at `now`; undefined when there is no such payment. */
export async function readPayerView(db: Db, lookup: PayerLookup, now: Date): Promise<PayerView | undefined> {
  const [found] = 'id' in lookup
    ? await payerViewQuery(db, { key: lookup.id }, 'id')
    : await payerViewQuery(db, { key: lookup.trackingToken }, 'tracking_token');
  if (!found) return undefined;
  const { p, o, c, b, remainder } = JSON.parse(found.row) as ViewRow;
  const at = (time: string | null) => (time === null ? null : new Date(time));
  const expiresAt = new Date(p.expires_at);
  const view: PayerView = {
    id: p.id,
    livemode: p.livemode,
    source: p.source,
    status: readStatus({ status: p.status, expires_at: expiresAt }, now),
    amountMinor: p.amount_minor,
    currency: p.currency,
    description: p.description,
    planLabel: p.plan_label,
    memo: p.memo,
    customerName: p.customer_name,
    given: { name: o.customer_name, phone: o.customer_phone },
    customerEmail: p.customer_email,
    collect: p.collect,
    successUrl: p.success_url,
    reference: p.reference,
    createdAt: new Date(p.created_at),
    expiresAt,
    startedAt: at(p.started_at),
    paidAt: at(p.paid_at),
    canceledAt: at(p.canceled_at),
    depositAddress: p.deposit_address,
    usdValueMinor: p.usd_value_minor,
    provider: p.provider,
    providerName: p.provider_name,
    receivedMinor: p.received_minor,
    valueCoin: p.value_coin,
    remainder: remainder === null ? null : {
      id: remainder.id, amountMinor: remainder.amount_minor, status: readStatus({ status: remainder.status, expires_at: new Date(remainder.expires_at) }, now),
    },
    paysRest: p.remainder_of !== null,
    order: o.items === null ? null : {
      items: o.items,
      subtotalMinor: o.subtotal_minor ?? 0,
      discountMinor: o.discount_minor ?? 0,
      shippingMinor: o.shipping_minor ?? 0,
      taxMinor: o.tax_minor ?? 0,
      totalMinor: o.total_minor ?? 0,
      shipTo: o.ship_to,
      billTo: o.bill_to,
    },
    business: {
      id: p.business_id, name: b.name, status: b.status, commerce: b.commerce,
      disabled_integrations: b.disabled_integrations, payout_wallet: b.payout_wallet,
      crypto_enabled: b.crypto_enabled, fee_bps: b.fee_bps,
    },
    brand: { color: b.brand_color, logo: b.logo_sha256 },
    checkout: c === null ? null : { id: c.id, slug: c.slug, name: c.name, theme: c.theme, buttonLabel: c.button_label, crypto: c.crypto, active: c.active },
    routing: c?.routing ?? p.routing ?? SMART,
  };
  readFrom.set(view, found.row);
  return view;
}

/** The buyer on this payment's page: its business and mode, no scopes, holding only this payment. */
export function buyerOf(view: PayerView): Principal {
  return { businessId: view.business.id, livemode: view.livemode, scopes: new Set(), actor: { kind: 'buyer', holds: view.id }, business: view.business };
}

/** Whether the buyer may pay in stablecoin: the account allows crypto, and so does the checkout bought. */
export function cryptoAllowed(view: PayerView): boolean {
  return view.business.crypto_enabled && (view.checkout?.crypto ?? true);
}

/** A payment link's tracking view by its token; undefined when no link has it. */
export async function readTrackingView(db: Db, trackingToken: string, now: Date): Promise<TrackingView | undefined> {
  const view = await readPayerView(db, { trackingToken }, now);
  if (!view || view.source !== 'payment_link') return undefined;
  const { livemode, status, amountMinor, currency, description, createdAt, expiresAt, paidAt, canceledAt, receivedMinor, business, brand } = view;
  return { livemode, status, amountMinor, currency, description, createdAt, expiresAt, paidAt, canceledAt, receivedMinor, business: { id: business.id, name: business.name }, brand };
}
