import { formatMoney } from '../../core/money.ts';
import type { MadeMail, PaymentMailFacts } from '../../mail/payment-mails.ts';
import { renderMail } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';

// The mail to a business's owners and developers when a payment is held and needs them, in
// English like the dashboard, with the payment's dashboard page; each of them can turn it off
// on the Team page (Your notifications).

const utc = (at: Date) => `${at.toISOString().replace('T', ' ').slice(0, 16)} UTC`;

export function heldForStaffMail(facts: PaymentMailFacts): MadeMail {
  const { business, payment } = facts;
  const mode = facts.livemode ? 'live' : 'test';
  return renderMail({
    subject: `${facts.livemode ? '' : '[Test] '}A payment to ${business.name} is held and needs you`,
    lang: 'en',
    brand: business.name,
    ...(facts.livemode ? {} : { banner: 'Test mode — no money moved.' }),
    heading: 'A payment is held',
    paragraphs: [
      `Money arrived for a payment to ${business.name}, but it did not pass the checks, so it is held: do not fulfil it yet.`,
      `Why: ${payment.holdReason ?? 'the payment failed a check.'}`,
      'The buyer has been told that you will sort it out. Open the payment to accept it or to settle it with the buyer.',
    ],
    facts: [
      { label: 'For', value: payment.description },
      { label: 'Amount due', value: formatMoney(payment.amountMinor, payment.currency) },
      ...(payment.receivedMinor === null ? [] : [{ label: 'Arrived', value: formatMoney(payment.receivedMinor, payment.currency) }]),
      { label: 'When', value: utc(facts.at) },
      { label: 'Payment', value: payment.id },
    ],
    link: { label: 'Open the payment in the dashboard', url: `${facts.baseUrl}${objectPath(business.id, 'payments', mode, payment.id)}` },
    footer: `You receive this as an owner or developer of ${business.name}. To stop these mails, open Team, Your notifications: ${facts.baseUrl}${businessPath(business.id, 'team', mode)}`,
  });
}
