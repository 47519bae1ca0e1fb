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
export const X402_HOW = 'Agents pay it over x402 at /x402/pay/{id}, as the answer says.';

/** The x402 address of a payer page's payment (its `url` with /pay/ made /x402/pay/): what an agent that buys is given. */
export function x402PayUrl(payerPageUrl: string): string | undefined {
  const url = new URL(payerPageUrl);
  if (!/^\/pay\/[^/]+$/.test(url.pathname)) return undefined;
  url.pathname = `/x402${url.pathname}`;
  return url.toString();
}

/** The MCP answer's note of a link's or session's x402 address (Operation.agentNote). */
export function x402Note(output: { url?: unknown; status?: unknown }): string | undefined {
  const address = typeof output.url === 'string' && output.status === 'open' ? x402PayUrl(output.url) : undefined;
  return address && `An agent that buys pays it over HTTP 402 (x402 version 2, USDC, EIP-3009) at ${address} (docs/x402.md).`;
}
