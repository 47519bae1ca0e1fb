import type { PaymentMailFacts } from '../../src/mail/payment-mails.ts';

// The facts a payment's mail is written from, as a coffee roaster's held or paid payment gives
// them: for the mail tests and the screenshots of the mails.

export const ITEMS: PaymentMailFacts['items'] = [
  { name: 'Ethiopia Guji', variant: '1 kg, whole beans', quantity: 2, amountMinor: 4400 },
  { name: 'Stoneware mug', variant: null, quantity: 1, amountMinor: 1800 },
];

export function mailFacts(overrides: { livemode?: boolean; language?: string | null; description?: string; business?: string; items?: PaymentMailFacts['items'] } = {}): PaymentMailFacts {
  return {
    baseUrl: 'https://pay.example.com',
    business: { id: 'biz_8Hc2LwQ5rT9mXz3vKp7NbY1d', name: overrides.business ?? 'Kestrel Coffee Roasters' },
    livemode: overrides.livemode ?? true,
    payment: {
      id: 'pay_2Tq9Lm4Xw7Rk3Vn8Pc5Bz1Hd',
      description: overrides.description ?? 'Ethiopia Guji, 1 kg, whole beans, roasted to order for espresso and filter alike',
      amountMinor: 2500,
      currency: 'USD',
      receivedMinor: 2010,
      paidAt: new Date('2026-03-04T08:12:00Z'),
      trackingUrl: 'https://pay.example.com/track/trk_4j26tk2EFScSzJD0mWaUrh4L',
      holdReason: 'Underpaid: 20.10 USD arrived of 25.00 USD.',
      underpaid: true,
    },
    items: overrides.items ?? [],
    language: overrides.language ?? null,
    at: new Date('2026-03-04T08:12:00Z'),
  };
}
