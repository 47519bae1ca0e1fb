import { sql, type QueryCreator } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import { newId } from '../../core/ids.ts';
import type { Db } from '../../db/database.ts';
import type { Database, StoredAddress } from '../../db/schema.ts';

export interface CustomerDetails {
  email: string;
  name?: string | null;
  phone?: string | null;
  shipping_address?: StoredAddress | null;
  billing_address?: StoredAddress | null;
}

/** A customer's columns as upsertCustomer writes them. */
export function customerValues(principal: Pick<Principal, 'businessId' | 'livemode'>, details: CustomerDetails, now: Date, orderCreatedAt: Date = now) {
  const json = (value: StoredAddress | null | undefined) => (value ? JSON.stringify(value) : null);
  return {
    id: newId('cus'),
    business_id: principal.businessId,
    livemode: principal.livemode,
    email: details.email.toLowerCase(),
    name: details.name ?? null,
    phone: details.phone ?? null,
    shipping_address: json(details.shipping_address),
    billing_address: json(details.billing_address),
    created_at: now,
    details_at: orderCreatedAt,
  };
}

export type CustomerValues = ReturnType<typeof customerValues>;

/**
 * Finds or creates the customer for an email in the caller's mode (spec 2.3 rules 1 and 3):
 * one customer per lowercased email; details sent now replace the saved ones, details left
 * out keep their earlier value. The statement, to run inside the creating statement or
 * transaction with the RETURNING the caller needs.
 */
export function upsertCustomer(qc: QueryCreator<Database>, principal: Principal, details: CustomerDetails, now: Date, orderCreatedAt: Date = now) {
  return upsertCustomerValues(qc, customerValues(principal, details, now, orderCreatedAt));
}

/** upsertCustomer from the columns customerValues made. */
export function upsertCustomerValues(qc: QueryCreator<Database>, values: CustomerValues) {
  // Only the customer's latest order speaks for them (rule 3): details from an older order,
  // started after a newer one was placed, do not replace the newer ones.
  const latest = sql<boolean>`(customers.details_at IS NULL OR excluded.details_at >= customers.details_at)`;
  const keep = <T>(column: string) => sql<T>`CASE WHEN ${latest} THEN COALESCE(${sql.ref(`excluded.${column}`)}, ${sql.ref(`customers.${column}`)}) ELSE ${sql.ref(`customers.${column}`)} END`;
  return qc
    .insertInto('customers')
    .values(values)
    .onConflict((conflict) =>
      conflict
        .columns(['business_id', 'livemode', 'email'])
        .where('email', 'is not', null)
        .doUpdateSet({
          name: keep<string | null>('name'),
          phone: keep<string | null>('phone'),
          shipping_address: keep<string | null>('shipping_address'),
          billing_address: keep<string | null>('billing_address'),
          details_at: sql<Date>`GREATEST(customers.details_at, excluded.details_at)`,
        }),
    );
}

/**
 * Records the store's own customer id on the customer of an order (spec 2.3 store_accounts):
 * one entry per store, the latest id winning.
 */
export async function linkStoreAccount(db: Db, orderId: string, store: { platform?: string | null; id?: string | null; name?: string | null }, storeCustomerId: string): Promise<void> {
  const entry = JSON.stringify({ platform: store.platform ?? '', store_id: store.id ?? '', store_name: store.name ?? null, customer_id: storeCustomerId });
  await sql`
    UPDATE customers c SET store_accounts = (
      SELECT COALESCE(jsonb_agg(account), '[]'::jsonb) FROM (
        SELECT account FROM jsonb_array_elements(c.store_accounts) account
        WHERE NOT (account->>'platform' = ${store.platform ?? ''} AND account->>'store_id' = ${store.id ?? ''})
        UNION ALL SELECT ${entry}::jsonb) accounts)
    FROM orders o
    WHERE o.id = ${orderId} AND c.id = o.customer_id`.execute(db);
}
