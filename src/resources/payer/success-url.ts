import type { PayerView } from './view.ts';

// Where a paid buyer goes (spec 2.6 successUrl): the address as the API validated and stored it,
// with {PAYMENT_ID} and {REFERENCE} filled in. The stored address keeps the placeholders, written
// %7BPAYMENT_ID%7D where URL parsing encoded them in the path; both forms are filled, each value
// percent-encoded, so a reference can never add a path, query or scheme of its own.

const PLACEHOLDER = /\{(PAYMENT_ID|REFERENCE)\}|%7B(PAYMENT_ID|REFERENCE)%7D/gi;

export function successUrlFor(view: Pick<PayerView, 'id' | 'reference' | 'successUrl'>): string | null {
  if (view.successUrl === null) return null;
  return view.successUrl.replace(PLACEHOLDER, (_match, braced: string | undefined, encoded: string | undefined) => {
    const name = (braced ?? encoded ?? '').toUpperCase();
    return encodeURIComponent(name === 'PAYMENT_ID' ? view.id : view.reference ?? '');
  });
}
