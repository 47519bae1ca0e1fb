import type { Principal } from '../../auth/principal.ts';
import { JsonText } from '../../core/json-text.ts';
import type { EventOut } from './schemas.ts';

// An event carries snapshots of other resources (issue 31, must have 1): its order and its
// customer. A caller reads them inside an event only with the scope that reads them on their own
// (`orders:read`, `customers:read`); without it the member is null, as it is for a payment that
// has none. The payment itself is what `payments:read` reads.

/** The stored body (the event as delivered, and as erasure left it) as this caller may read it. */
export function eventForCaller(principal: Pick<Principal, 'scopes'>, body: string): EventOut {
  const orders = principal.scopes.has('orders:read');
  const customers = principal.scopes.has('customers:read');
  // Written out as those bytes when nothing is withheld.
  if (orders && customers) return new JsonText(body) as unknown as EventOut;
  const event = JSON.parse(body) as { data: { order: unknown; customer: unknown } };
  if (!orders) event.data.order = null;
  if (!customers) event.data.customer = null;
  return event as EventOut;
}
