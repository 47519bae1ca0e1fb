import type { Principal } from '../../auth/principal.ts';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { template } from '../../db/template.ts';
import type { OrderItem, PaymentSource, PaymentStatus, Routing, StoredAddress } from '../../db/schema.ts';
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

// Built once per lookup (by id, by tracking token): the page is read on every load and poll.
const payerViewQuery = template((db: Db, a: { key: string }, by: 'id' | 'tracking_token') => db
  .selectFrom('payments as p')
  .innerJoin('businesses as b', 'b.id', 'p.business_id')
  .leftJoin('orders as o', 'o.id', 'p.order_id')
  .leftJoin('checkouts as c', 'c.id', 'p.checkout_id')
  .leftJoin('business_logos as bl', 'bl.business_id', 'p.business_id')
  .select([
    'p.id', 'p.business_id', 'p.livemode', 'p.source', 'p.status', 'p.amount_minor', 'p.currency', 'p.description', 'p.memo', 'p.customer_name',
    'p.customer_email', 'p.collect', 'p.success_url', 'p.reference', 'p.created_at', 'p.expires_at', 'p.started_at', 'p.paid_at',
    'p.canceled_at', 'p.deposit_address', 'p.usd_value_minor', 'p.provider', 'p.provider_name', 'p.routing', 'p.received_minor', 'p.value_coin', 'p.remainder_of',
    'o.customer_name as order_customer_name', 'o.customer_phone', 'o.items', 'o.subtotal_minor', 'o.discount_minor', 'o.shipping_minor', 'o.tax_minor', 'o.total_minor', 'o.ship_to', 'o.bill_to',
    'c.id as checkout_id', 'c.slug', 'c.name as checkout_name', 'c.theme', 'c.button_label', 'c.crypto', 'c.active', 'c.routing as checkout_routing',
    'b.name as business_name', 'b.status as business_status', 'b.commerce as business_commerce', 'b.disabled_integrations as business_disabled_integrations',
    'b.payout_wallet as business_payout_wallet', 'b.crypto_enabled as business_crypto_enabled', 'b.fee_bps as business_fee_bps',
    'b.brand_color', 'bl.sha256 as logo_sha256',
  ])
  // The rest asked for this payment (an index lookup: payments_one_remainder's column).
  .select((eb) => eb.selectFrom('payments as r')
    .select(sql<RemainderJson>`json_build_object('id', r.id, 'amount_minor', r.amount_minor, 'status', r.status, 'expires_at', r.expires_at)`.as('j'))
    .whereRef('r.remainder_of', '=', 'p.id').orderBy('r.created_at', 'desc').limit(1).as('remainder'))
  .where(by === 'id' ? 'p.id' : 'p.tracking_token', '=', a.key), (by) => by);

interface RemainderJson { id: string; amount_minor: number; status: PaymentStatus; expires_at: string }

/** The payer's view of a payment, as it reads at `now`; undefined when there is no such payment. */
export async function readPayerView(db: Db, lookup: PayerLookup, now: Date): Promise<PayerView | undefined> {
  const [row] = 'id' in lookup
    ? await payerViewQuery(db, { key: lookup.id }, 'id')
    : await payerViewQuery(db, { key: lookup.trackingToken }, 'tracking_token');
  if (!row) return undefined;
  return {
    id: row.id,
    livemode: row.livemode,
    source: row.source,
    status: readStatus(row, now),
    amountMinor: row.amount_minor,
    currency: row.currency,
    description: row.description,
    memo: row.memo,
    customerName: row.customer_name,
    given: { name: row.order_customer_name, phone: row.customer_phone },
    customerEmail: row.customer_email,
    collect: row.collect,
    successUrl: row.success_url,
    reference: row.reference,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    startedAt: row.started_at,
    paidAt: row.paid_at,
    canceledAt: row.canceled_at,
    depositAddress: row.deposit_address,
    usdValueMinor: row.usd_value_minor,
    provider: row.provider,
    providerName: row.provider_name,
    receivedMinor: row.received_minor,
    valueCoin: row.value_coin,
    remainder: row.remainder === null ? null : {
      id: row.remainder.id, amountMinor: row.remainder.amount_minor, status: readStatus({ status: row.remainder.status, expires_at: new Date(row.remainder.expires_at) }, now),
    },
    paysRest: row.remainder_of !== null,
    order: row.items === null ? null : {
      items: row.items,
      subtotalMinor: row.subtotal_minor ?? 0,
      discountMinor: row.discount_minor ?? 0,
      shippingMinor: row.shipping_minor ?? 0,
      taxMinor: row.tax_minor ?? 0,
      totalMinor: row.total_minor ?? 0,
      shipTo: row.ship_to,
      billTo: row.bill_to,
    },
    business: {
      id: row.business_id, name: row.business_name, status: row.business_status, commerce: row.business_commerce,
      disabled_integrations: row.business_disabled_integrations, payout_wallet: row.business_payout_wallet,
      crypto_enabled: row.business_crypto_enabled, fee_bps: row.business_fee_bps,
    },
    brand: { color: row.brand_color, logo: row.logo_sha256 },
    checkout: row.checkout_id === null || row.slug === null ? null : {
      id: row.checkout_id, slug: row.slug, name: row.checkout_name ?? '', theme: row.theme ?? 'light',
      buttonLabel: row.button_label, crypto: row.crypto ?? true, active: row.active ?? true,
    },
    routing: row.checkout_routing ?? row.routing ?? SMART,
  };
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
