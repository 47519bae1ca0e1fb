import type { Insertable } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import { newId } from '../../core/ids.ts';
import type { Db } from '../../db/database.ts';
import type { OrdersTable } from '../../db/schema.ts';

export const FIRST_ORDER_NUMBER = 1001;

/** The next order number of the caller's business and mode (1001, 1002, …). */
async function nextOrderNumber(db: Db, principal: Principal): Promise<number> {
  const row = await db
    .insertInto('order_numbers')
    .values({ business_id: principal.businessId, livemode: principal.livemode, last_number: FIRST_ORDER_NUMBER })
    .onConflict((conflict) =>
      conflict.columns(['business_id', 'livemode']).doUpdateSet((eb) => ({ last_number: eb('order_numbers.last_number', '+', 1) })),
    )
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return row.last_number;
}

export type OrderFields = Omit<Insertable<OrdersTable>, 'id' | 'business_id' | 'livemode' | 'number' | 'created_at' | 'updated_at'>;

/** Inserts an order in the caller's mode with the next number; call inside the creating transaction. */
export async function insertOrder(db: Db, principal: Principal, fields: OrderFields, now: Date): Promise<string> {
  const id = newId('ord');
  await db
    .insertInto('orders')
    .values({
      ...fields,
      id,
      business_id: principal.businessId,
      livemode: principal.livemode,
      number: await nextOrderNumber(db, principal),
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}
