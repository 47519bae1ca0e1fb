import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { formatAmount, MAX_AMOUNT_MINOR, MIN_AMOUNT_MINOR } from '../../core/money.ts';
import { ACCEPTED_COINS, type AcceptedCoinId } from '../../core/payment-request.ts';
import { coded } from '../../core/validation.ts';
import { RoutingOut, routingField } from '../checkouts/schemas.ts';
import { OrderInput, orderTotal } from '../orders/input.ts';
import { PaymentIdInput, PaymentOut, type PaymentWithCustomer } from '../payments/schemas.ts';
import { payerUrl } from '../shared/payer-urls.ts';
import { readStatus } from '../shared/payment-status.ts';
import { routingOut } from '../providers/routing.ts';
import { addressField } from '../shared/addresses.ts';
import {
  amountField, collectField, collectOut, currencyField, emailField, metadataField, optionalText, urlField,
} from '../shared/fields.ts';

// Checkout sessions (spec 4.5, 4.6; shapes ours): one attempt at paying a store order.

const IDEMPOTENCY_KEY = /^[\x20-\x7E]{1,120}$/;

export const idempotencyKeyField = z
  .string(coded('invalid_idempotency_key', 'Idempotency-Key must be 1 to 120 printable ASCII characters.'))
  .refine((key) => IDEMPOTENCY_KEY.test(key) && key.trim() !== '',
    coded('invalid_idempotency_key', 'Idempotency-Key must be 1 to 120 printable ASCII characters, not blank.'))
  .optional()
  .describe('Idempotency-Key: 1 to 120 printable ASCII characters, unique per order attempt; remembered 24 hours.');

const customerField = z.object({
  email: emailField('customer.email').nullish().describe('The buyer\'s email; finds or creates the customer now. Same as customer_email: send one.'),
  name: optionalText('customer.name', 200, 'invalid_customer').describe('The buyer\'s name; up to 200 characters.'),
  phone: optionalText('customer.phone', 40, 'invalid_customer').describe('The buyer\'s phone; up to 40 characters.'),
}, coded('invalid_customer', 'customer must be an object with email, name and phone.'))
  .nullish()
  .describe('The buyer: email, name and phone. The latest order\'s name, phone and addresses replace the customer\'s saved ones.');

export const CreateCheckoutSessionInput = z.object({
  amount: amountField.optional().describe('Decimal string from "1.00" to "100000.00"; required unless checkout_id is sent (then the checkout\'s price).'),
  currency: currencyField.optional().describe('USD, EUR, GBP, CAD or AUD; required unless checkout_id is sent.'),
  checkout_id: z.string(coded('invalid_checkout', 'checkout_id must be a checkout id (chk_…).')).optional()
    .describe('Sell one of your checkouts: the session is that checkout\'s purchase (source checkout) at its price, routing and settings; each buyer gets their own payment and order.'),
  description: optionalText('description', 120, 'missing_description')
    .describe('What is being paid for, shown to the buyer; up to 120 characters. Default: the order summary.'),
  reference: optionalText('reference', 64, 'invalid_reference').describe('Your own id for this attempt; up to 64 characters.'),
  metadata: metadataField,
  success_url: urlField('success_url').nullish()
    .describe('Where the buyer lands after paying: a full address without username or password, up to 2,048 characters; {PAYMENT_ID} and {REFERENCE} are filled in. https:// in Live mode.'),
  collect: collectField,
  customer_email: emailField('customer_email').nullish().describe('The buyer\'s email; finds or creates the customer now.'),
  customer: customerField,
  shipping_address: addressField('shipping_address').nullish()
    .describe('Where the order ships (the order\'s ship_to when order has none). Every address needs line1 and city; US, CA and AU a region code; US, CA, AU, GB and the EU a postal code.'),
  billing_address: addressField('billing_address').nullish()
    .describe('The buyer\'s billing address (the order\'s bill_to when order has none); the same rules as shipping_address.'),
  routing: routingField.optional(),
  order: OrderInput.nullish().describe('The store\'s order: its id (required), number, items, totals (they must add up: subtotal = the item amounts, total = subtotal - discount + shipping + tax), addresses and store. A second session with the same store and order id attaches to the same order. amount may then be left out.'),
  idempotency_key: idempotencyKeyField,
}).superRefine((input, ctx) => {
  const issue = (path: string, code: 'invalid_amount' | 'invalid_currency', message: string) =>
    ctx.addIssue({ code: 'custom', path: [path], message: coded(code, message).error });
  // What the session asks is what the order costs: the hold check compares what arrives with it.
  const total = input.order ? orderTotal(input.order) : null;
  if (input.checkout_id === undefined) {
    if (input.amount === undefined && total === null) issue('amount', 'invalid_amount', 'amount is required: a decimal string such as "25.00".');
    if (input.currency === undefined) issue('currency', 'invalid_currency', 'currency is required: USD, EUR, GBP, CAD or AUD.');
  }
  if (input.amount === undefined && total !== null && (total < MIN_AMOUNT_MINOR || total > MAX_AMOUNT_MINOR)) {
    issue('amount', 'invalid_amount', 'The order total must be from 1.00 to 100000.00 to be paid in one session.');
  }
  if (input.amount !== undefined && total !== null && input.amount !== total) {
    issue('amount', 'invalid_amount', `amount must equal the order's total, ${formatAmount(total)}.`);
  }
  const email = input.customer?.email;
  if (input.customer_email && email && input.customer_email !== email) {
    ctx.addIssue({ code: 'custom', path: ['customer', 'email'], message: coded('invalid_customer', 'customer.email and customer_email differ; send one.').error });
  }
});
export type CreateCheckoutSessionInput = z.output<typeof CreateCheckoutSessionInput>;

// A session is a payment: its id is the payment's.
export const CheckoutSessionIdInput = PaymentIdInput;

export const StartCheckoutSessionInput = CheckoutSessionIdInput.extend({
  email: emailField('email').nullish().describe('The buyer\'s email; required unless the session already has one. A different email moves the order to that customer.'),
  name: optionalText('name', 200, 'invalid_customer').describe('The buyer\'s name; up to 200 characters.'),
  phone: optionalText('phone', 40, 'invalid_customer').describe('The buyer\'s phone; up to 40 characters.'),
  shipping_address: addressField('shipping_address').nullish()
    .describe('Where the order ships, saved to the order and the customer; the rules of session creation.'),
  billing_address: addressField('billing_address').nullish()
    .describe('The buyer\'s billing address, saved to the order and the customer; the rules of session creation.'),
  country: z.string(coded('invalid_address', 'country must be a two-letter country code.'))
    .regex(/^[A-Za-z]{2}$/, coded('invalid_address', 'country must be a two-letter country code.'))
    .transform((code) => code.toUpperCase())
    .optional()
    .describe('Where the buyer is, for which card providers can take them. Default: the billing, then shipping address country.'),
  coin: z.enum(Object.keys(ACCEPTED_COINS) as [AcceptedCoinId, ...AcceptedCoinId[]], coded('invalid_value', `coin must be one of ${Object.keys(ACCEPTED_COINS).join(', ')}.`))
    .optional()
    .describe('The coin the buyer means to send, checked before anything starts: in Live mode a coin no healthy payment processor watches now answers 409 coin_unavailable. Optional; the answer\'s `coins` lists every coin the buyer may send.'),
});
export type StartCheckoutSessionInput = z.output<typeof StartCheckoutSessionInput>;

// The payment's facts a session shows, with its order (always one), routing and what the payer page asks.
export const CheckoutSessionOut = PaymentOut.pick({
  id: true, object: true, livemode: true, status: true, url: true, amount: true, currency: true, description: true,
  reference: true, metadata: true, success_url: true, customer_email: true, customer_id: true, order_id: true,
  deposit_address: true, created: true, expires_at: true, started_at: true, paid_at: true,
}).extend({
  id: z.string().describe('`pay_…`: the session and its payment share one id.'),
  object: z.literal('checkout_session').describe('Always `checkout_session`.'),
  url: z.string().describe('The buyer\'s page: send the buyer there to pay.'),
  expires_at: z.number().int().describe('When an unpaid session expires (24 hours after creation), Unix seconds.'),
  order_id: z.string().describe('`ord_…` of the session\'s order (every session belongs to one).'),
  collect: collectOut,
  routing: RoutingOut,
  payment_id: z.string().describe('`pay_…` of the session\'s payment: the same as id.'),
}).describe('A checkout session: one attempt at paying, created by your server. A session and its payment share one id; each session belongs to an order, and each order to a customer.');
export type CheckoutSessionOut = z.infer<typeof CheckoutSessionOut>;

export const CardProviderOut = z.object({
  id: z.string().describe('The provider\'s identifier, such as `moonpay`.'),
  name: z.string().describe('Its display name.'),
  recommended: z.boolean().describe('Whether smart routing recommends it (the first one, at most).'),
}).describe('A card provider that can take this buyer.');

export const StartedCheckoutSessionOut = CheckoutSessionOut.extend({
  card_providers: z.array(CardProviderOut).describe('Card providers that can take this buyer, best first; empty when none can (crypto may still be possible).'),
  crypto: z.boolean().describe('Whether the buyer may pay by sending stablecoins.'),
  coins: z.array(z.string()).describe('The coins the buyer may send to deposit_address (such as `polygon_usdc`): in Live mode those a healthy payment processor watches now, in Test mode every accepted coin; empty when crypto is not possible.'),
}).describe('A started checkout session, with the ways the buyer can pay.');
export type StartedCheckoutSessionOut = z.infer<typeof StartedCheckoutSessionOut>;


export const DEFAULT_ROUTING = { choice: 'smart', provider: null, fallback: false } as const;

export function toCheckoutSessionOut(row: PaymentWithCustomer, baseUrl: string, now: Date): CheckoutSessionOut {
  return {
    id: row.id,
    object: 'checkout_session',
    livemode: row.livemode,
    status: readStatus(row, now),
    url: payerUrl(baseUrl, row),
    amount: formatAmount(row.amount_minor),
    currency: row.currency,
    description: row.description,
    reference: row.reference,
    metadata: row.metadata,
    success_url: row.success_url,
    collect: row.collect,
    routing: routingOut(row.routing ?? DEFAULT_ROUTING),
    customer_email: row.customer_email,
    customer_id: row.customer_id,
    order_id: row.order_id ?? '',
    payment_id: row.id,
    deposit_address: row.deposit_address,
    created: unixSeconds(row.created_at),
    expires_at: unixSeconds(row.expires_at),
    started_at: unixSecondsOrNull(row.started_at),
    paid_at: unixSecondsOrNull(row.paid_at),
  };
}
