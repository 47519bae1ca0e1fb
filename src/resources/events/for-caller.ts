import type { Principal } from '../../auth/principal.ts';
import { JsonText } from '../../core/json-text.ts';
import type { EventOut } from './schemas.ts';

// An event carries snapshots of other resources (issue 31, must have 1): its order and its
// customer. A caller reads them inside an event only with the scope that reads them on their own
// (`orders:read`, `customers:read`); without it the member is null, as it is for a payment that
// has none. The payment itself is what `payments:read` reads.

const readsAll = (principal: Pick<Principal, 'scopes'>) => principal.scopes.has('orders:read') && principal.scopes.has('customers:read');

function withheld(principal: Pick<Principal, 'scopes'>, body: string): unknown {
  const event = JSON.parse(body) as { data?: { order?: unknown; customer?: unknown } };
  if (event.data && !principal.scopes.has('orders:read') && 'order' in event.data) event.data.order = null;
  if (event.data && !principal.scopes.has('customers:read') && 'customer' in event.data) event.data.customer = null;
  return event;
}

/** The stored body (the event as delivered, and as erasure left it) as this caller may read it. */
export function eventForCaller(principal: Pick<Principal, 'scopes'>, body: string): EventOut {
  // Written out as those bytes when nothing is withheld.
  if (readsAll(principal)) return new JsonText(body) as unknown as EventOut;
  return withheld(principal, body) as EventOut;
}

/**
 * A delivery's body (the event as sent) as this caller may read it in the delivery log: the
 * exact bytes for a caller who reads orders and customers, else the same event with those
 * members null. The endpoint itself was sent them: it is the business's own.
 */
export function eventBodyForCaller(principal: Pick<Principal, 'scopes'>, body: string): string {
  return readsAll(principal) || body === '' ? body : JSON.stringify(withheld(principal, body));
}
