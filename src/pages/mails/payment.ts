import type { MadeMail, PaymentMailFacts } from '../../mail/payment-mails.ts';
import { renderMail, type MailContent } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { messagesOfLanguage } from '../messages/index.ts';
import { price } from '../views/frame.ts';

// The buyer's mail about their payment, in the language of the payer page they started on: the
// receipt when it is paid, a notice in plain words when it is held. Only this payment's facts.

const moments = new Map<string, Intl.DateTimeFormat>();
function when(t: Messages, at: Date): string {
  let format = moments.get(t.lang);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(t.lang, { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' });
    moments.set(t.lang, format);
  }
  return format.format(at);
}

/** What the buyer paid for, line by line, when one line for the whole amount does not say it. */
function itemsOf(t: Messages, facts: PaymentMailFacts): MailContent['items'] {
  const { items, payment } = facts;
  const one = items.length === 1 && items[0]!.quantity === 1 && items[0]!.name === payment.description;
  if (items.length === 0 || one) return undefined;
  return {
    heading: t.mailItems,
    rows: items.map((item) => ({
      name: `${item.quantity > 1 ? `${item.quantity} × ` : ''}${item.name}${item.variant ? ` (${item.variant})` : ''}`,
      amount: price(t, item.amountMinor, payment.currency),
    })),
  };
}

function frameOf(t: Messages, facts: PaymentMailFacts) {
  const business = facts.business.name;
  return {
    lang: t.lang,
    brand: business,
    ...(facts.livemode ? {} : { banner: t.mailTestMode }),
    footer: t.mailFooter(business),
    ...(facts.payment.trackingUrl ? { link: { label: t.mailTrack, url: facts.payment.trackingUrl } } : {}),
  };
}

export function receiptMail(facts: PaymentMailFacts): MadeMail {
  const t = messagesOfLanguage(facts.language);
  const { payment } = facts;
  const items = itemsOf(t, facts);
  return renderMail({
    ...frameOf(t, facts),
    subject: t.mailReceiptSubject(facts.business.name),
    heading: t.mailReceiptHeading,
    paragraphs: [t.mailReceiptText(facts.business.name)],
    facts: [
      { label: t.description, value: payment.description },
      { label: t.mailAmountPaid, value: price(t, payment.amountMinor, payment.currency) },
      { label: t.paidOn, value: when(t, payment.paidAt ?? facts.at) },
      { label: t.paymentId, value: payment.id },
    ],
    ...(items ? { items } : {}),
  });
}

export function heldNoticeMail(facts: PaymentMailFacts): MadeMail {
  const t = messagesOfLanguage(facts.language);
  const { payment } = facts;
  const due = price(t, payment.amountMinor, payment.currency);
  const received = payment.receivedMinor === null ? null : price(t, payment.receivedMinor, payment.currency);
  return renderMail({
    ...frameOf(t, facts),
    subject: t.mailHeldSubject(facts.business.name),
    heading: t.mailHeldHeading,
    paragraphs: [
      payment.underpaid && received !== null ? t.mailHeldUnderpaid(received, due) : t.mailHeldOther,
      t.mailHeldTold(facts.business.name),
    ],
    facts: [
      { label: t.description, value: payment.description },
      { label: t.mailAmountDue, value: due },
      ...(received === null ? [] : [{ label: t.mailArrived, value: received }]),
      { label: t.mailArrivedOn, value: when(t, facts.at) },
      { label: t.paymentId, value: payment.id },
    ],
  });
}
