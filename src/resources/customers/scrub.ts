// How erasing a customer rewrites a value (spec 2.3 rule 7): the email, and the name and phone
// where they stand as whole words, become [erased] in any text the merchant, a store or an
// endpoint wrote; the customer's own detail fields become null. Ids, states and amounts the
// service made are never altered, so a stored body still says what happened to the payment.

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const ERASED = '[erased]';

export type Scrub = (text: string) => string;

/** Every form a customer's details took: the customer's, and those its orders and payments were given. */
export interface Details {
  emails: ReadonlyArray<string | null>;
  names: ReadonlyArray<string | null>;
  phones: ReadonlyArray<string | null>;
}

const unique = (values: ReadonlyArray<string | null>, minimum: number) =>
  [...new Set(values.filter((value): value is string => value !== null).map((value) => value.trim()).filter((value) => value.length >= minimum))]
    .sort((a, b) => b.length - a.length);
const wordAt = (text: string, index: number) => index >= 0 && /[\p{L}\p{N}]/u.test(text[index]!);

/**
 * Replaces each detail in free text with [erased]: an email anywhere (any letter case), a name of
 * 4 characters or more and a phone of 6 or more where they stand as whole words (a short name
 * would take the words of other people's text with it). Longest first, so a name is not cut by a
 * shorter one inside it.
 */
export function scrubber(details: Details): Scrub {
  const patterns = [
    ...unique(details.emails, 3).map((email) => new RegExp(escapeRegExp(email), 'gi')),
    ...[...unique(details.names, 4), ...unique(details.phones, 6)]
      .map((value) => new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(value)}(?![\\p{L}\\p{N}])`, 'giu')),
  ];
  return (text) => patterns.reduce((out, pattern) => out.replace(pattern, ERASED), text);
}

/**
 * As scrubber, for text cut at a length (a response excerpt): a detail cut short at the end, from
 * 3 characters on and starting a word, becomes [erased] too.
 */
export function truncatedScrubber(details: Details): Scrub {
  const whole = scrubber(details);
  const values = [...unique(details.emails, 3), ...unique(details.names, 4), ...unique(details.phones, 6)].map((value) => value.toLowerCase());
  return (text) => {
    const out = whole(text);
    const lower = out.toLowerCase();
    for (const value of values) {
      for (let length = value.length - 1; length >= 3; length -= 1) {
        if (lower.endsWith(value.slice(0, length)) && !wordAt(out, out.length - length - 1)) return out.slice(0, out.length - length) + ERASED;
      }
    }
    return out;
  };
}

/** Every string in a JSON value as free text; the shape stays, so a typed field stays a string. */
export function scrubStrings(value: unknown, scrub: Scrub): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubStrings(item, scrub));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubStrings(item, scrub)]));
  return value;
}

/** Merchant metadata: a value that was nothing but a detail becomes null; one that mentioned it keeps the rest. */
export function scrubMetadata(value: unknown, scrub: Scrub): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => {
    if (typeof item !== 'string') return [key, item];
    const scrubbed = scrub(item);
    return [key, scrubbed === ERASED ? null : scrubbed];
  }));
}

// The snapshot fields the service makes itself (spec 2.6 to 2.8): ids, states, amounts, chain
// facts and its own addresses. Every other string, a field added later included, is free text.
const SERVICE_MADE = {
  payment: new Set(['id', 'mode', 'source', 'checkoutId', 'amount', 'currency', 'status', 'provider', 'providerName', 'method', 'network',
    'depositAddress', 'payoutWallet', 'valueCoin', 'merchantReceived', 'coin', 'holdReason', 'txidIn', 'txidOut', 'trackingUrl', 'url', 'orderId',
    'metadata']),
  order: new Set(['id', 'mode', 'source', 'checkoutId', 'status', 'fulfillment', 'currency', 'subtotal', 'discount', 'shipping', 'tax', 'total',
    'amountPaid', 'received', 'paymentId', 'items']),
  item: new Set(['unitAmount', 'amount']),
  customer: new Set(['id', 'mode']),
};

const scrubExcept = (object: Json, kept: ReadonlySet<string>, scrub: Scrub): Json =>
  Object.fromEntries(Object.entries(object).map(([key, value]) => [key, kept.has(key) ? value : scrubStrings(value, scrub)]));

/**
 * A stored event body after the erasure: the erased customer's detail fields null (spec 2.8),
 * the detail fields of a payment it made null, and every other string free text (metadata as
 * metadata), so a resend carries none of it.
 */
export function eraseFromEventBody(body: string, customerId: string, paymentIds: ReadonlySet<string>, scrub: Scrub): string {
  const event = JSON.parse(body) as Json;
  if (!isObject(event.data)) return body;
  const { customer, order, payment } = event.data;
  const data: Json = { ...event.data };
  if (isObject(customer)) {
    data.customer = customer.id === customerId
      ? { ...scrubExcept(customer, SERVICE_MADE.customer, scrub), email: null, name: null, phone: null, location: null, shipTo: null, billTo: null, erased: true }
      : scrubExcept(customer, SERVICE_MADE.customer, scrub);
  }
  if (isObject(order)) {
    const own = isObject(order.customer) && order.customer.id === customerId;
    data.order = {
      ...scrubExcept(order, SERVICE_MADE.order, scrub),
      ...(Array.isArray(order.items) ? { items: order.items.map((item) => (isObject(item) ? scrubExcept(item, SERVICE_MADE.item, scrub) : item)) } : {}),
      ...(own ? { customer: { ...(order.customer as Json), email: null, name: null, erased: true }, shipTo: null, billTo: null } : {}),
    };
  }
  if (isObject(payment)) {
    data.payment = {
      ...scrubExcept(payment, SERVICE_MADE.payment, scrub),
      metadata: scrubMetadata(payment.metadata, scrub),
      ...(paymentIds.has(String(payment.id)) ? { customerEmail: null, customerName: null } : {}),
    };
  }
  return JSON.stringify({ ...event, data });
}
