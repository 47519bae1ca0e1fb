import { sql } from 'kysely';
import { HOUR } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import { scoped } from '../../db/owned.ts';
import type { MailHeldBecause, PaymentRow } from '../../db/schema.ts';
import { queueMail } from '../../mail/outbox.ts';
import type { PaymentMailFacts } from '../../mail/payment-mails.ts';
import type { PaymentState } from '../../events/record.ts';
import type { AppContext } from '../../verbs/context.ts';
import { trackingUrl } from '../shared/payer-urls.ts';

// The mail a payment's move sends, written in the move's transaction (every path to paid or
// held goes through applyMove): a receipt to the buyer when it is paid, and when it is held a
// notice to the buyer and a mail to the business's owners and developers who did not turn it
// off. The buyer's mail goes to this payment's own email only and tells of this payment alone.
//
// Mail no one can aim (issue 31): anyone can start a Test payment with any email and press the
// Test "paid" button, so a Test payment's buyer mail is sent only to the business's own people
// (any other address: held, `test_mode`); a Live one costs a real payment, and still an address
// gets at most BUYER_MAIL_PER_HOUR of them an hour across all businesses (then `address_limit`);
// the staff's held mail goes once per payment.

export type PaymentMailDeps = Pick<AppContext, 'clock' | 'config' | 'jobs' | 'paymentMails'>;

function factsOf(payment: PaymentRow, state: PaymentState, business: { id: string; name: string }, deps: PaymentMailDeps): PaymentMailFacts {
  const received = payment.received_minor;
  return {
    baseUrl: deps.config.baseUrl,
    business,
    livemode: payment.livemode,
    payment: {
      id: payment.id,
      description: payment.plan_label ? `${payment.description} (${payment.plan_label})` : payment.description,
      amountMinor: payment.amount_minor,
      currency: payment.currency,
      receivedMinor: received !== null && received > 0 ? received : null,
      paidAt: payment.paid_at,
      trackingUrl: payment.tracking_token === null ? null : trackingUrl(deps.config.baseUrl, payment),
      holdReason: payment.hold_reason,
      underpaid: payment.status === 'held' && payment.hold_acceptable && received !== null && received > 0 && received < payment.amount_minor,
    },
    items: (state.order?.items ?? []).map((item) => ({ name: item.name, variant: item.variant, quantity: item.quantity, amountMinor: item.amount_minor })),
    language: payment.payer_language,
    at: deps.clock.now(),
  };
}

/** The buyer of `payment`, when they gave an email: this payment's own, nothing else. */
function buyerOf(db: Db, payment: PaymentRow) {
  return scoped(db.selectFrom('payments'), 'payments', { businessId: payment.business_id, livemode: payment.livemode }, payment.id)
    .select('customer_email as email').where('customer_email', 'is not', null).$narrowType<{ email: string }>();
}

/** Receipts and held notices one address gets in an hour, from every business together (Live). */
export const BUYER_MAIL_PER_HOUR = 5;

/** Why the buyer's copy is not sent (SQL over `recipients.email`), or null: it is. */
function buyerMailWithheld(payment: PaymentRow, now: Date) {
  if (!payment.livemode) {
    return sql<MailHeldBecause | null>`CASE WHEN EXISTS (SELECT 1 FROM memberships m JOIN people p ON p.id = m.person_id
      WHERE m.business_id = ${payment.business_id} AND lower(p.email) = lower(recipients.email)) THEN NULL ELSE 'test_mode' END`;
  }
  return sql<MailHeldBecause | null>`CASE WHEN (SELECT count(*) FROM outbox o WHERE o.recipient = lower(recipients.email)
      AND o.kind IN ('payment_receipt', 'payment_held') AND o.created_at > ${new Date(now.getTime() - HOUR)}
      AND (o.held_because IS NULL OR o.held_because = 'no_smtp')) >= ${BUYER_MAIL_PER_HOUR} THEN 'address_limit' END`;
}

/** The owners and developers of the business who did not turn off held-payment mail, unless this payment's was written already. */
function staffOf(db: Db, businessId: string, paymentId: string) {
  return db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', businessId).where('m.role', 'in', ['owner', 'developer'])
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('outbox as o').select('o.id')
      .where('o.payment_id', '=', paymentId).where('o.kind', '=', 'payment_held_staff'))))
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('notification_preferences as n').select('n.person_id')
      .whereRef('n.business_id', '=', 'm.business_id').whereRef('n.person_id', '=', 'm.person_id').where('n.held_payment_mail', '=', false))));
}

/** Queues the mail of a payment that just became paid or held, in the move's transaction `db`. */
export async function mailPaymentOutcome(db: Db, deps: PaymentMailDeps, state: PaymentState): Promise<void> {
  const { payment } = state;
  if (payment.status !== 'paid' && payment.status !== 'held') return;
  const business = await db.selectFrom('businesses').select(['id', 'name']).where('id', '=', payment.business_id).executeTakeFirstOrThrow();
  const facts = factsOf(payment, state, business, deps);
  const about = { businessId: business.id, paymentId: payment.id };
  const toBuyer = { ...about, recipients: buyerOf(db, payment), withheld: buyerMailWithheld(payment, deps.clock.now()) };
  if (payment.status === 'paid') {
    const mail = deps.paymentMails.receipt(facts);
    await queueMail(db, deps, { ...toBuyer, kind: 'payment_receipt', subject: mail.subject, body: mail.text, html: mail.html });
    return;
  }
  const notice = deps.paymentMails.heldNotice(facts);
  await queueMail(db, deps, { ...toBuyer, kind: 'payment_held', subject: notice.subject, body: notice.text, html: notice.html });
  const staff = deps.paymentMails.heldForStaff(facts);
  await queueMail(db, deps, { ...about, kind: 'payment_held_staff', recipients: staffOf(db, business.id, payment.id), subject: staff.subject, body: staff.text, html: staff.html });
}
