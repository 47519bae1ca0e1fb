import { z } from 'zod';
import { metadataOut } from '../resources/shared/fields.ts';
import { PAYMENT_STATUSES } from '../resources/shared/payment-status.ts';
import { PAYMENT_EVENT_TYPES, PING } from './types.ts';

// The body of every webhook delivery (spec 2.5 to 2.8), as schemas: snapshots.ts builds its
// objects to these types, the OpenAPI document's `webhooks` section publishes them, and the
// tests parse real deliveries with them. camelCase, timestamps in milliseconds.

const ms = (what: string) => z.number().int().describe(`${what}, Unix milliseconds.`);
const msOrNull = (what: string) => z.number().int().nullable().describe(`${what}, Unix milliseconds; null until it happens.`);
const mode = z.enum(['live', 'test']).describe('`live` or `test`: the mode the object belongs to.');
const money = (what: string) => z.string().describe(`${what}: a decimal string with two decimals, such as "25.00".`);
const SOURCES = ['api', 'checkout', 'payment_link'] as const;

export const AddressSnapshot = z.object({
  name: z.string().nullable().describe('Who receives it.'),
  line1: z.string().nullable().describe('First line: street and number.'),
  line2: z.string().nullable().describe('Second line: flat, floor, building.'),
  city: z.string().nullable().describe('City or town.'),
  region: z.string().nullable().describe('State, province or territory; a code for the US, Canada and Australia.'),
  postalCode: z.string().nullable().describe('Postal or ZIP code.'),
  country: z.string().describe('ISO 3166-1 alpha-2 country code, uppercase.'),
}).describe('A postal address, as on the order.');

export const PaymentSnapshot = z.object({
  id: z.string().describe('`pay_…`, the same id as the API (a checkout session, payment link or checkout purchase shares it).'),
  mode,
  source: z.enum(SOURCES).describe('Where the payment came from: `api` (checkout session), `checkout` (checkout page, pricing table or widget), `payment_link`.'),
  checkoutId: z.string().nullable().describe('`chk_…` for checkout payments; null otherwise.'),
  planLabel: z.string().nullable().describe('Pricing tables: the plan and price chosen; null otherwise.'),
  description: z.string().describe('What is being paid for.'),
  reference: z.string().nullable().describe('The merchant reference as sent at creation.'),
  customerEmail: z.string().nullable().describe('The email the buyer entered (any address can be typed; not an account identifier).'),
  amount: money('The price set'),
  currency: z.string().describe('The price currency: USD, EUR, GBP, CAD or AUD.'),
  status: z.enum(PAYMENT_STATUSES).describe('`open`, `pending`, `paid`, `held`, `failed` or `expired`, as the event leaves it.'),
  provider: z.string().nullable().describe('The card provider the buyer chose; null when paid in crypto (and usually on `payment.started`).'),
  providerName: z.string().nullable().describe('Display name of the provider, or coin and network for crypto.'),
  method: z.enum(['card', 'crypto']).describe('`card` or `crypto`.'),
  network: z.string().nullable().describe('Crypto only: the network the money arrived on; null for card.'),
  depositAddress: z.string().nullable().describe('The one-time address paid into; set when a Live payment starts; null in Test mode.'),
  payoutWallet: z.string().nullable().describe('The merchant wallet the payment is forwarded to, fixed at start.'),
  feeBps: z.number().int().describe('The fee locked into the payment, in basis points of what arrives (150 = 1.5%).'),
  valueCoin: z.string().nullable().describe('The amount that arrived at the deposit address, in `coin`; null until money arrives.'),
  merchantReceived: z.string().nullable().describe('The amount forwarded to the merchant, in `coin`, six decimals; null until reported, never estimated.'),
  coin: z.string().nullable().describe('What arrived, usually `polygon_usdc`; null until money arrives.'),
  holdReason: z.string().nullable().describe('Why the payment is held, in plain words; null unless held.'),
  holdAcceptable: z.boolean().describe('For a held payment: whether the merchant can accept it as paid (false when evidence shows the money went elsewhere).'),
  txidIn: z.string().nullable().describe('The transaction that delivered the money.'),
  txidOut: z.string().nullable().describe('The transaction that forwarded it to the merchant.'),
  metadata: metadataOut.nullable().describe('Merchant metadata as sent at session creation.'),
  customerName: z.string().nullable().describe('Payment links: who it is for; null for other payments.'),
  memo: z.string().nullable().describe('Payment links: the note to the payer; null for other payments.'),
  trackingUrl: z.string().nullable().describe('Payment links: the tracking page; null for other payments.'),
  canceledAt: msOrNull('Payment links: when the merchant canceled it'),
  successUrl: z.string().nullable().describe('The success address as set, with `{PAYMENT_ID}` and `{REFERENCE}` placeholders left in (percent-encoded when in the path).'),
  createdAt: ms('When the payment was created'),
  paidAt: msOrNull('When it became `paid`'),
  expiresAt: ms('When an unpaid payment expires'),
  url: z.string().describe('The hosted page the buyer pays on.'),
  orderId: z.string().nullable().describe('`ord_…` of the payment\'s order.'),
}).describe('The payment as the event leaves it (`data.payment`): the API payment\'s facts in camelCase, times in milliseconds.');

const StoreSnapshot = z.object({
  platform: z.string().nullable().describe('The store platform, such as `woocommerce`.'),
  id: z.string().nullable().describe('The store\'s id on its platform.'),
  name: z.string().nullable().describe('The store\'s name.'),
  url: z.string().nullable().describe('The store\'s address.'),
  orderId: z.string().describe('The store\'s own order id (`order.id` at session creation).'),
  orderNumber: z.string().nullable().describe('The store\'s order number, shown to people.'),
  orderUrl: z.string().nullable().describe('The order\'s page in the store.'),
  customerId: z.string().nullable().describe('The store\'s own id for the customer.'),
}).describe('The store an order came from, for orders sent with `order.id`.');

const OrderItemSnapshot = z.object({
  name: z.string().describe('What was bought.'),
  variant: z.string().nullable().describe('Size, colour or other variant.'),
  sku: z.string().nullable().describe('The store\'s stock-keeping unit.'),
  quantity: z.number().int().describe('How many units.'),
  unitAmount: z.string().nullable().describe('Price of one unit, decimal string; null when not sent.'),
  amount: money('Price of the line'),
}).describe('One item line of the order.');

export const OrderSnapshot = z.object({
  id: z.string().describe('`ord_…`.'),
  mode,
  number: z.number().int().describe('The service\'s order number, counting from 1001 per mode.'),
  displayNumber: z.string().describe('The number shown to people: the store\'s number when sent, else the service\'s.'),
  source: z.enum(SOURCES).describe('Where the first payment came from: `api`, `checkout` or `payment_link`.'),
  checkoutId: z.string().nullable().describe('`chk_…` for checkout orders.'),
  store: StoreSnapshot.nullable().describe('For orders sent with `order.id`: the store and its ids; null otherwise.'),
  status: z.enum(PAYMENT_STATUSES).describe('The order status including this event; it follows all of the order\'s payments (paid over held over the latest attempt).'),
  needsReview: z.boolean().describe('True when held and the merchant needs to decide.'),
  fulfillment: z.enum(['none', 'unfulfilled', 'fulfilled']).describe('`none`, `unfulfilled` or `fulfilled`.'),
  fulfilledAt: msOrNull('When it was fulfilled'),
  customer: z.object({
    id: z.string().describe('`cus_…`.'),
    email: z.string().nullable().describe('Lowercased; null once the customer\'s details were deleted.'),
    name: z.string().nullable().describe('The customer\'s name.'),
    erased: z.boolean().describe('True once the customer\'s details were deleted.'),
  }).nullable().describe('The order\'s customer, in short; null until the buyer has given an email.'),
  summary: z.string().describe('The first item and how many more lines.'),
  lineCount: z.number().int().describe('Number of item lines.'),
  unitCount: z.number().int().describe('Units across all lines.'),
  currency: z.string().describe('The currency of every amount on the order.'),
  subtotal: money('Sum of the item amounts'),
  discount: money('Taken off the subtotal'),
  discountCode: z.string().nullable().describe('The discount code used.'),
  shipping: money('Shipping charged'),
  shippingMethod: z.string().nullable().describe('How it ships.'),
  tax: money('Tax charged'),
  total: money('subtotal - discount + shipping + tax'),
  amountPaid: money('Sum of its paid payments in `currency`; below `total` after a part-payment left it held'),
  received: z.string().nullable().describe('USDC that reached the merchant wallet, six decimals; null until reported.'),
  shipTo: AddressSnapshot.nullable().describe('Where it ships; null when not given.'),
  billTo: AddressSnapshot.nullable().describe('The billing address; null when not given.'),
  reference: z.string().nullable().describe('The reference of its latest payment.'),
  paymentId: z.string().nullable().describe('The payment that decides the status: the paid one, else the held one, else the latest.'),
  attemptCount: z.number().int().describe('Number of payments (attempts) of the order.'),
  createdAt: ms('When the order was created'),
  updatedAt: ms('When the order last changed'),
  paidAt: msOrNull('When its first payment became paid'),
  items: z.array(OrderItemSnapshot).describe('The first 50 item lines (the API order has them all).'),
}).describe('The payment\'s order with items, as the event leaves it (`data.order`).');

export const CustomerSnapshot = z.object({
  id: z.string().describe('`cus_…`.'),
  mode,
  email: z.string().nullable().describe('Lowercased; null once deleted.'),
  name: z.string().nullable().describe('Contact name.'),
  phone: z.string().nullable().describe('Contact phone.'),
  location: z.string().nullable().describe('Place from the shipping address, else the billing address, as city, region, country.'),
  shipTo: AddressSnapshot.nullable().describe('The latest shipping address.'),
  billTo: AddressSnapshot.nullable().describe('The latest billing address.'),
  storeAccounts: z.array(z.object({
    platform: z.string().describe('The store platform.'),
    storeId: z.string().describe('The store\'s id on its platform.'),
    storeName: z.string().nullable().describe('The store\'s name.'),
    customerId: z.string().describe('The customer\'s id in that store.'),
  }).describe('The customer\'s account in one store.')).describe('The customer\'s accounts in stores that sent orders.'),
  firstSeenAt: ms('When the customer was first seen'),
  erased: z.boolean().describe('True once the customer\'s details were deleted.'),
}).describe('The order\'s customer (`data.customer`). Order counts, spend and the private note are never sent.');

/** The envelope of a payment event (every type of PAYMENT_EVENT_TYPES). */
export const PaymentEvent = z.object({
  id: z.string().describe('`evt_…`; identical on every attempt and resend: deduplicate on it.'),
  type: z.enum(PAYMENT_EVENT_TYPES).describe('The event type (spec 6.2).'),
  created: z.number().int().describe('When the event happened, Unix seconds.'),
  livemode: z.boolean().describe('True for a Live event.'),
  data: z.object({
    payment: PaymentSnapshot,
    order: OrderSnapshot.nullable().describe('The payment\'s order with items, as the event leaves it.'),
    customer: CustomerSnapshot.nullable().describe('The order\'s customer; null until the buyer has given an email.'),
  }).describe('Snapshots of the payment, its order and its customer, in camelCase with millisecond timestamps.'),
}).describe('A payment event, as POSTed to each subscribed endpoint of the same mode.');

/** The envelope of a ping: sent only when the merchant asks for a test send. */
export const PingEvent = z.object({
  id: z.string().describe('`evt_…`.'),
  type: z.literal(PING).describe('Always `ping`.'),
  created: z.number().int().describe('When it was sent, Unix seconds.'),
  livemode: z.boolean().describe('True when sent to a Live endpoint.'),
  data: z.object({
    payment: z.null().describe('Always null.'),
    order: z.null().describe('Always null.'),
    customer: z.null().describe('Always null.'),
  }).describe('Empty: every object is null.'),
}).describe('A ping: sent when the merchant chooses Send test event (Test endpoint) or Send ping (Live endpoint); never subscribed to.');

export type PaymentSnapshot = z.infer<typeof PaymentSnapshot>;
export type OrderSnapshot = z.infer<typeof OrderSnapshot>;
export type CustomerSnapshot = z.infer<typeof CustomerSnapshot>;
export type AddressSnapshot = z.infer<typeof AddressSnapshot>;

/** When each event is sent, and what to do with it (spec 6.2), for the OpenAPI `webhooks` section. */
export const EVENT_DESCRIPTIONS: Readonly<Record<z.infer<typeof PaymentEvent>['type'] | typeof PING, string>> = {
  'payment.started': 'The buyer entered an email and was given a way to pay. The payment is still `open`; `provider` is usually null; ' +
    'a Live payment has its deposit address (null in Test). Not for fulfilment. The customer appears first here if the email was given only now.',
  'payment.paid': 'Money arrived and passed the checks, or a held payment was accepted. The event to fulfil from: `status` is `paid` and `paidAt` set; ' +
    '`valueCoin`, `coin` and `txidIn` say what arrived, `txidOut` and `merchantReceived` what was forwarded (when known). ' +
    'Deliver an order once, keyed on `data.order.id`: two paid sessions of one order send two `payment.paid`.',
  'payment.held': 'Money arrived but failed a check (most often less than 90% of the order\'s value). Do not fulfil. `holdReason` says why in plain words; ' +
    '`holdAcceptable` is false when evidence shows the money went elsewhere. Acceptance by the merchant is followed by `payment.paid`.',
  'payment.updated': 'A paid payment\'s settlement details arrived: `txidIn`, `valueCoin`, `coin` and `merchantReceived` are now filled. ' +
    'The status stays `paid`; nothing to fulfil again.',
  'payment.failed': 'Terminal failure. Currently Test mode only, from a simulation with outcome `failed`. The buyer tries again with a new session.',
  'payment.expired': 'Nobody paid before `expiresAt` (24 hours for API sessions, the chosen lifetime for links); sent within five minutes of expiry. ' +
    'May still be followed by `payment.paid` or `payment.held` when money arrives late.',
  'payment.canceled': 'A payment link was canceled before anyone went to a card provider: `status` is `expired` and `canceledAt` set.',
  ping: 'Sent when the merchant chooses Send test event (Test endpoint) or Send ping (Live endpoint). `data.payment`, `data.order` and ' +
    '`data.customer` are all null. It cannot be subscribed to.',
};
