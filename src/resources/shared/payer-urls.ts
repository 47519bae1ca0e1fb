import type { PaymentRow } from '../../db/schema.ts';

// The addresses a payment's buyer and onlookers open (spec 2.1 url and tracking_url).

/** The payer page of a payment link or checkout session. */
export function payerUrl(baseUrl: string, payment: Pick<PaymentRow, 'id'>): string {
  return `${baseUrl}/pay/${payment.id}`;
}

/** A payment link's tracking page: by its own token, so the page cannot lead to the payer page. */
export function trackingUrl(baseUrl: string, payment: Pick<PaymentRow, 'id' | 'tracking_token'>): string {
  if (payment.tracking_token === null) throw new Error(`Payment ${payment.id} has no tracking token: only payment links have one.`);
  return `${baseUrl}/track/${payment.tracking_token}`;
}

/** How a buyer's agent pays a link or session, as the tools that create them say it (docs/x402.md). */
export const X402_HOW = 'Agents pay it over x402 (USDC) at /x402/pay/{id}.';
