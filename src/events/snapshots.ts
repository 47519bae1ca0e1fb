import { formatAmount } from '../core/money.ts';
import type { CustomerRow, OrderRow, PaymentRow, StoredAddress } from '../db/schema.ts';
import { payerUrl, trackingUrl } from '../resources/shared/payer-urls.ts';
import { deriveOrder, displayNumber, summaryOf, unitCount } from '../resources/orders/derive.ts';
import type { AddressSnapshot, CustomerSnapshot, OrderSnapshot, PaymentSnapshot } from './payloads.ts';

// The objects inside webhook events (spec 2.6 to 2.8): camelCase, timestamps in milliseconds,
// as the change leaves them. Built only here, to the types of payloads.ts (what the OpenAPI
// document publishes).

export const WEBHOOK_ITEM_LIMIT = 50;

const ms = (date: Date | null) => (date === null ? null : date.getTime());
const modeOf = (livemode: boolean): 'live' | 'test' => (livemode ? 'live' : 'test');

export function addressSnapshot(address: StoredAddress | null): AddressSnapshot | null {
  if (address === null) return null;
  return {
    name: address.name,
    line1: address.line1,
    line2: address.line2,
    city: address.city,
    region: address.region,
    postalCode: address.postal_code,
    country: address.country,
  };
}

export function paymentSnapshot(payment: PaymentRow, baseUrl: string): PaymentSnapshot {
  const isLink = payment.source === 'payment_link';
  return {
    id: payment.id,
    mode: modeOf(payment.livemode),
    source: payment.source,
    checkoutId: payment.checkout_id,
    planLabel: payment.plan_label,
    description: payment.description,
    reference: payment.reference,
    customerEmail: payment.customer_email,
    amount: formatAmount(payment.amount_minor),
    currency: payment.currency,
    status: payment.status,
    provider: payment.provider,
    providerName: payment.provider_name,
    method: payment.method,
    network: payment.network,
    depositAddress: payment.deposit_address,
    payoutWallet: payment.payout_wallet,
    feeBps: payment.fee_bps ?? 0,
    valueCoin: payment.value_coin,
    merchantReceived: payment.merchant_received,
    coin: payment.coin,
    holdReason: payment.hold_reason,
    holdAcceptable: payment.hold_acceptable,
    txidIn: payment.txid_in,
    txidOut: payment.txid_out,
    metadata: payment.metadata,
    customerName: isLink ? payment.customer_name : null,
    memo: isLink ? payment.memo : null,
    trackingUrl: isLink ? trackingUrl(baseUrl, payment) : null,
    canceledAt: ms(payment.canceled_at),
    successUrl: payment.success_url,
    createdAt: payment.created_at.getTime(),
    paidAt: ms(payment.paid_at),
    expiresAt: payment.expires_at.getTime(),
    url: payerUrl(baseUrl, payment),
    orderId: payment.order_id,
  };
}

export function orderSnapshot(order: OrderRow, payments: readonly PaymentRow[], customer: CustomerRow | null, now: Date): OrderSnapshot {
  const facts = deriveOrder(payments, now);
  const store = order.store;
  return {
    id: order.id,
    mode: modeOf(order.livemode),
    number: order.number,
    displayNumber: displayNumber(order),
    source: order.source,
    checkoutId: order.checkout_id,
    store: store === null ? null : {
      platform: store.platform,
      id: store.id,
      name: store.name,
      url: store.url,
      orderId: store.order_id,
      orderNumber: store.order_number,
      orderUrl: store.order_url,
      customerId: store.customer_id,
    },
    status: facts.status,
    needsReview: facts.needsReview,
    fulfillment: order.fulfillment,
    fulfilledAt: ms(order.fulfilled_at),
    customer: customer === null ? null : { id: customer.id, email: customer.email, name: customer.name, erased: customer.erased },
    summary: summaryOf(order.items),
    lineCount: order.items.length,
    unitCount: unitCount(order.items),
    currency: order.currency,
    subtotal: formatAmount(order.subtotal_minor),
    discount: formatAmount(order.discount_minor),
    discountCode: order.discount_code,
    shipping: formatAmount(order.shipping_minor),
    shippingMethod: order.shipping_method,
    tax: formatAmount(order.tax_minor),
    total: formatAmount(order.total_minor),
    amountPaid: formatAmount(facts.amountPaidMinor),
    received: facts.received,
    shipTo: addressSnapshot(order.ship_to),
    billTo: addressSnapshot(order.bill_to),
    reference: facts.reference,
    paymentId: facts.paymentId,
    attemptCount: facts.attemptCount,
    createdAt: order.created_at.getTime(),
    updatedAt: order.updated_at.getTime(),
    paidAt: ms(facts.paidAt),
    items: order.items.slice(0, WEBHOOK_ITEM_LIMIT).map((item) => ({
      name: item.name,
      variant: item.variant,
      sku: item.sku,
      quantity: item.quantity,
      unitAmount: item.unit_amount_minor === null ? null : formatAmount(item.unit_amount_minor),
      amount: formatAmount(item.amount_minor),
    })),
  };
}

/** "City, Region, Country" from the shipping address, else the billing address. */
export function locationOf(customer: Pick<CustomerRow, 'shipping_address' | 'billing_address'>): string | null {
  const address = customer.shipping_address ?? customer.billing_address;
  if (!address) return null;
  const parts = [address.city, address.region, address.country].filter((part): part is string => !!part);
  return parts.length > 0 ? parts.join(', ') : null;
}

export function customerSnapshot(customer: CustomerRow): CustomerSnapshot {
  return {
    id: customer.id,
    mode: modeOf(customer.livemode),
    email: customer.email,
    name: customer.name,
    phone: customer.phone,
    location: locationOf(customer),
    shipTo: addressSnapshot(customer.shipping_address),
    billTo: addressSnapshot(customer.billing_address),
    storeAccounts: customer.store_accounts.map((account) => ({
      platform: account.platform,
      storeId: account.store_id,
      storeName: account.store_name,
      customerId: account.customer_id,
    })),
    firstSeenAt: customer.created_at.getTime(),
    erased: customer.erased,
  };
}

export type { CustomerSnapshot, OrderSnapshot, PaymentSnapshot } from './payloads.ts';
