import { acceptHeldPayment } from './accept.ts';
import { readPaymentTimeline } from './timeline.ts';

// The money decision the spec leaves to the dashboard (spec 3: held -> paid).
export const paymentActions = [acceptHeldPayment, readPaymentTimeline];
