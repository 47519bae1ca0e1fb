import { ApiError } from '../../core/errors.ts';
import { parseOrThrow } from '../../core/validation.ts';
import type { AppContext } from '../../verbs/context.ts';
import { StartCheckoutSessionInput, type StartedCheckoutSessionOut } from '../checkout-sessions/schemas.ts';
import { startCheckoutSession } from '../checkout-sessions/start.ts';
import { buyerOf, type PayerView } from './view.ts';

/**
 * A buyer starts paying on the payer page (spec 3, open -> open): the same verb as
 * `POST /v1/checkout_sessions/:id/start`, for this payment only, with what the buyer typed
 * (email and the details `collect` asks for), validated as the API validates them. `admit` (the
 * payer pages' starts a minute, pages/starts.ts) is asked only once the details pass, so a
 * mistyped form uses none of them, and before the start writes anything.
 */
export async function startAsBuyer(app: AppContext, view: PayerView, details: Record<string, unknown>, admit: () => void): Promise<StartedCheckoutSessionOut> {
  if (view.status !== 'open') throw new ApiError('invalid_state', 'This payment cannot be started now.');
  if (!details.email && !view.customerEmail) throw new ApiError('invalid_email', 'Enter your email address.', 'email');
  requireCollected(view.collect, details);
  const input = parseOrThrow(StartCheckoutSessionInput, { ...details, id: view.id });
  admit();
  return startCheckoutSession({ ...app, principal: buyerOf(view) }, input);
}

/**
 * A phone number as a person types one: digits with spaces, dots, dashes, slashes or brackets, a
 * leading + for the country code, and from 5 to 15 digits (E.164's most). The API keeps a store's
 * phone as it was sent (spec 2.6); a buyer asked for theirs gives one the business can call.
 */
const PHONE = /^\+?[\d\s().\-/]+$/;
export function looksLikePhone(text: string): boolean {
  const digits = text.replace(/\D/g, '').length;
  return PHONE.test(text.trim()) && digits >= 5 && digits <= 15;
}

/** What the merchant's `collect` asks for (spec 2.9) the buyer must give; the API's start takes it when sent. */
export function requireCollected(collect: Record<string, boolean> | null, details: Record<string, unknown>): void {
  if (collect?.name && !details.name) throw new ApiError('invalid_customer', 'Enter your name.', 'name');
  if (collect?.phone && !details.phone) throw new ApiError('invalid_customer', 'Enter your phone number.', 'phone');
  if (collect?.phone && typeof details.phone === 'string' && !looksLikePhone(details.phone)) {
    throw new ApiError('invalid_customer', 'Enter a phone number in digits, such as +1 415 555 0100.', 'phone');
  }
  for (const kind of ['shipping_address', 'billing_address'] as const) {
    if (collect?.[kind] && !details[kind]) throw new ApiError('invalid_address', `Enter your ${kind === 'shipping_address' ? 'shipping' : 'billing'} address.`, kind);
  }
}
