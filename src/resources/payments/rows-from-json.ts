import type { CustomerRow, OrderRow, PaymentRow } from '../../db/schema.ts';

// Rows that a statement returns as to_jsonb(...) (so one round trip can carry several tables)
// come back with timestamps as text; these give them their Date fields again.

type Json = Record<string, unknown>;

function dates<T>(json: Json, fields: readonly string[]): T {
  const row: Json = { ...json };
  for (const field of fields) {
    const value = row[field];
    row[field] = value === null || value === undefined ? null : new Date(String(value));
  }
  return row as T;
}

export function orderFromJson(json: Json): OrderRow {
  return dates<OrderRow>(json, ['created_at', 'updated_at', 'paid_at', 'fulfilled_at']);
}

export function customerFromJson(json: Json): CustomerRow {
  return dates<CustomerRow>(json, ['created_at', 'details_at']);
}

/** Payments as JSON must carry their numeric columns as text (::text in the query). */
export function paymentFromJson(json: Json): PaymentRow {
  return dates<PaymentRow>(json, ['created_at', 'updated_at', 'expires_at', 'started_at', 'provider_reached_at', 'paid_at', 'canceled_at']);
}
