import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { X402_REASONS, type X402Reason } from './payload.ts';

// A Live authorization's claim as the processor's notices move it on (issue 33, docs/x402.md):
// `verified` (the service checked it) → `submitted` (the processor's transaction carries it) →
// `settled` (its deposit reached the payment), or `refused` (the chain would not take it, or the
// transaction failed: the reason is the protocol's). Each change wakes the buyer's waiting request
// through payment_changed, the channel payment waits listen on.

export const X402_REASON_NAMES = Object.keys(X402_REASONS) as [X402Reason, ...X402Reason[]];

const wake = (db: Db, paymentId: string) => sql`SELECT pg_notify('payment_changed', ${paymentId})`.execute(db);

/** The processor broadcast the authorization's transaction. Answers whether the claim moved. */
export async function claimSubmitted(db: Db, claim: { id: string; paymentId: string; txid: string }, now: Date): Promise<boolean> {
  const moved = await db.updateTable('x402_authorizations').set({ state: 'submitted', tx_hash: claim.txid, updated_at: now })
    .where('id', '=', claim.id).where('payment_id', '=', claim.paymentId).where('state', '=', 'verified').returning('id').executeTakeFirst();
  if (moved) await wake(db, claim.paymentId);
  return moved !== undefined;
}

/** The chain refused the authorization, or its transaction failed: nothing moved. Answers whether the claim moved. */
export async function claimRefused(db: Db, claim: { id: string; paymentId: string; reason: X402Reason; txid: string | null }, now: Date): Promise<boolean> {
  const moved = await db.updateTable('x402_authorizations').set({ state: 'refused', reason: claim.reason, tx_hash: claim.txid, updated_at: now })
    .where('id', '=', claim.id).where('payment_id', '=', claim.paymentId).where('state', 'in', ['verified', 'submitted']).returning('id').executeTakeFirst();
  if (moved) await wake(db, claim.paymentId);
  return moved !== undefined;
}

/**
 * A deposit reached the payment from the payer of its authorization on its way, for exactly the
 * amount authorized: the authorization settled, in this transaction. Answers whether it was one.
 */
export async function claimSettledBy(db: Db, deposit: { paymentId: string; from: string; value: bigint; txid: string }, now: Date): Promise<boolean> {
  const settled = await db.updateTable('x402_authorizations').set({ state: 'settled', tx_hash: deposit.txid, updated_at: now })
    .where('payment_id', '=', deposit.paymentId).where('state', 'in', ['verified', 'submitted'])
    .where('payer', '=', deposit.from.toLowerCase()).where('value', '=', deposit.value.toString()).returning('id').executeTakeFirst();
  return settled !== undefined;
}

/** The authorization an x402 gas report is of, when it is this payment's. */
export function claimOfPayment(db: Db, id: string, paymentId: string) {
  return db.selectFrom('x402_authorizations').select(['id', 'state', 'tx_hash']).where('id', '=', id).where('payment_id', '=', paymentId).executeTakeFirst();
}
