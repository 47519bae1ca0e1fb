// What a payment's mail is made from, and who makes it. The payment's move writes the mail in its
// own transaction (resources/payments/mail.ts), but the words live with the pages (the buyer's
// catalogue, the dashboard's addresses): the composition root hands those makers to the domain
// in the app context, so the domain never imports a transport.

export interface PaymentMailFacts {
  /** Public origin, without a trailing slash (links in the mail are absolute). */
  baseUrl: string;
  business: { id: string; name: string };
  livemode: boolean;
  payment: {
    id: string;
    description: string;
    amountMinor: number;
    currency: string;
    /** What arrived, in the payment's currency, when known (a held payment). */
    receivedMinor: number | null;
    paidAt: Date | null;
    /** A payment link's public tracking page; null for other payments. */
    trackingUrl: string | null;
    /** The service's words for why a payment is held (for the merchant's people, not the buyer). */
    holdReason: string | null;
    /** Held because less than the full amount arrived. */
    underpaid: boolean;
  };
  /** The order's lines, when it has any (a checkout's). */
  items: ReadonlyArray<{ name: string; variant: string | null; quantity: number; amountMinor: number }>;
  /** The payer page's language the buyer started in; null: English. */
  language: string | null;
  /** When it happened (paid or held). */
  at: Date;
}

export interface MadeMail {
  subject: string;
  text: string;
  html: string;
}

export interface PaymentMailMakers {
  /** To the buyer, when their payment is paid. */
  receipt(facts: PaymentMailFacts): MadeMail;
  /** To the buyer, when their payment is held. */
  heldNotice(facts: PaymentMailFacts): MadeMail;
  /** To the business's owners and developers, when a payment is held (English). */
  heldForStaff(facts: PaymentMailFacts): MadeMail;
}
