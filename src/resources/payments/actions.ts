import { acceptHeldPayment } from './accept.ts';
import { askForRemainder } from './remainder.ts';
import { readPaymentTimeline } from './timeline.ts';

// The money decisions the spec leaves to the dashboard: accept a held payment (spec 3: held ->
// paid), or ask its buyer for the rest (docs/remainders.md).
export const paymentActions = [acceptHeldPayment, askForRemainder, readPaymentTimeline];
