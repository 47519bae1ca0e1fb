import { acceptHeldPayment } from './accept.ts';

// The money decision the spec leaves to the dashboard (spec 3: held -> paid).
export const paymentActions = [acceptHeldPayment];
