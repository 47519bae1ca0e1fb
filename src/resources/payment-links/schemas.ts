import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { formatAmount } from '../../core/money.ts';
import { pageOf } from '../../core/pagination.ts';
import { ListPaymentsInput, PaymentIdInput, PaymentOut } from '../payments/schemas.ts';
import { coded } from '../../core/validation.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { addressField } from '../shared/addresses.ts';
import { amountField, collectField, collectOut, currencyField, emailField, optionalText, requiredText, urlField } from '../shared/fields.ts';
import { payerUrl, trackingUrl } from '../shared/payer-urls.ts';
import { readStatus } from '../shared/payment-status.ts';

const expiry = 'expires_in_days must be a whole JSON number from 1 to 30.';

export const CreatePaymentLinkInput = z.object({
  amount: amountField.describe('The amount asked: a decimal string from "1.00" to "100000.00", at most two decimals.'),
  currency: currencyField.describe('USD, EUR, GBP, CAD or AUD, in any letter case.'),
  description: requiredText('description', 120, 'missing_description').describe('What the payment is for, shown to the payer; up to 120 characters.'),
  customer_name: optionalText('customer_name', 80, 'invalid_customer_name').describe('Who the link is for; up to 80 characters.'),
  customer_email: emailField('customer_email').nullish().describe('Payer email, pre-filled on their page; stored lowercased.'),
  customer_phone: optionalText('customer_phone', 40, 'invalid_customer_phone').describe('Up to 40 characters; kept on the order.'),
  shipping_address: addressField('shipping_address').nullish()
    .describe('Where the order ships: kept on the order and shown to the payer. Every address needs line1 and city; US, CA and AU a region code; US, CA, AU, GB and the EU a postal code.'),
  billing_address: addressField('billing_address').nullish()
    .describe('The payer\'s billing address: kept on the order and shown to the payer; the same rules as shipping_address.'),
  reference: optionalText('reference', 64, 'invalid_reference').describe('Your own id for the payment; up to 64 characters.'),
  memo: optionalText('memo', 500, 'invalid_memo').describe('Note to the payer; up to 500 characters.'),
  expires_in_days: z
    .number(coded('invalid_expiry', expiry))
    .int(coded('invalid_expiry', expiry))
    .min(1, coded('invalid_expiry', expiry))
    .max(30, coded('invalid_expiry', expiry))
    .default(7)
    .describe('Days the link accepts payments, 1 to 30 (default 7); a JSON number.'),
  success_url: urlField('success_url').nullish()
    .describe('Where the payer lands after paying: a full address without username or password, up to 2,048 characters; https:// in Live mode.'),
  collect: collectField,
});
export type CreatePaymentLinkInput = z.output<typeof CreatePaymentLinkInput>;

// A link is a payment (source payment_link): its id is the payment's.
export const PaymentLinkIdInput = PaymentIdInput;

// The payment-link list takes the payments list's parameters (spec 4.5).
export const ListPaymentLinksInput = ListPaymentsInput.pick({
  limit: true, starting_after: true, status: true, reference: true, created_gte: true, created_lte: true,
});
export type ListPaymentLinksInput = z.output<typeof ListPaymentLinksInput>;

// The payment's facts a link shows, and what the payer page asks.
export const PaymentLinkOut = PaymentOut.pick({
  id: true, object: true, url: true, tracking_url: true, status: true, livemode: true, amount: true, currency: true,
  description: true, reference: true, customer_name: true, customer_email: true, memo: true, success_url: true,
  order_id: true, created: true, expires_at: true, started_at: true, paid_at: true, canceled_at: true,
}).extend({
  object: z.literal('payment_link').describe('Always `payment_link`.'),
  id: z.string().describe('`pay_…`; also the id of the link\'s payment.'),
  url: z.string().describe('The payer\'s page.'),
  tracking_url: z.string().nullable().describe('The read-only status page without payer details.'),
  customer_name: z.string().nullable().describe('Who the link is for.'),
  customer_email: z.string().nullable().describe('The payer\'s email, filled in on their page, lowercased.'),
  memo: z.string().nullable().describe('The note to the payer.'),
  order_id: z.string().nullable().describe('`ord_…` of the order the link belongs to.'),
  expires_at: z.number().int().describe('When it stops accepting new payments, Unix seconds.'),
  canceled_at: z.number().int().nullable().describe('When you canceled it, Unix seconds; a canceled link is `expired` with canceled_at set.'),
  collect: collectOut,
}).describe('A payment link: a one-off request for one amount from one payer. Its id is its payment\'s id.');
export type PaymentLinkOut = z.infer<typeof PaymentLinkOut>;

export const PaymentLinkList = pageOf(PaymentLinkOut, 'payment links');

export function toPaymentLinkOut(row: PaymentRow, baseUrl: string, now: Date): PaymentLinkOut {
  return {
    id: row.id,
    object: 'payment_link',
    url: payerUrl(baseUrl, row),
    tracking_url: trackingUrl(baseUrl, row),
    status: readStatus(row, now),
    livemode: row.livemode,
    amount: formatAmount(row.amount_minor),
    currency: row.currency,
    description: row.description,
    reference: row.reference,
    customer_name: row.customer_name,
    customer_email: row.customer_email,
    memo: row.memo,
    success_url: row.success_url,
    collect: row.collect,
    order_id: row.order_id,
    created: unixSeconds(row.created_at),
    expires_at: unixSeconds(row.expires_at),
    started_at: unixSecondsOrNull(row.started_at),
    paid_at: unixSecondsOrNull(row.paid_at),
    canceled_at: unixSecondsOrNull(row.canceled_at),
  };
}
