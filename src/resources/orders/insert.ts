import type { Insertable, QueryCreator } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import type { Database, OrdersTable } from '../../db/schema.ts';

export const FIRST_ORDER_NUMBER = 1001;

/**
 * Takes the next order number of the caller's business and mode (1001, 1002, …), as a
 * statement to run inside the creating statement or transaction: the counter row stays locked
 * only until that commits.
 */
export function allocateOrderNumber(qc: QueryCreator<Database>, principal: Pick<Principal, 'businessId' | 'livemode'>) {
  return qc
    .insertInto('order_numbers')
    .values({ business_id: principal.businessId, livemode: principal.livemode, last_number: FIRST_ORDER_NUMBER })
    .onConflict((conflict) =>
      conflict.columns(['business_id', 'livemode']).doUpdateSet((eb) => ({ last_number: eb('order_numbers.last_number', '+', 1) })),
    )
    .returning('last_number');
}

export type OrderFields = Omit<Insertable<OrdersTable>, 'id' | 'business_id' | 'livemode' | 'number' | 'created_at' | 'updated_at'>;

/** The columns of a new order in the caller's mode, all but its number. */
export function newOrder(principal: Principal, id: string, fields: OrderFields, now: Date): Omit<Insertable<OrdersTable>, 'number'> {
  return { ...fields, id, business_id: principal.businessId, livemode: principal.livemode, created_at: now, updated_at: now };
}
