import { sql } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { ChainMovementRow } from '../../db/schema.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { getPayment } from '../payments/queries.ts';
import { toTransferOut, type TransferList } from './schemas.ts';

/** A payment's movements in the books in the chain's order (block, log), then as recorded (scoped: the payment must be the caller's). */
export async function paymentMovements(db: Db, principal: Principal, paymentId: string): Promise<ChainMovementRow[]> {
  const payment = await getPayment(db, principal, paymentId);
  return db.selectFrom('chain_movements').selectAll().where('payment_id', '=', payment.id)
    .where('business_id', '=', principal.businessId).where('livemode', '=', principal.livemode)
    .orderBy(sql`block_number NULLS LAST`).orderBy(sql`log_index NULLS LAST`).orderBy('recorded_at')
    .orderBy((eb) => eb.case().when('kind', '=', 'deposit').then(0).else(1).end()).orderBy('id').execute();
}

export async function listPaymentTransfers(ctx: OperationContext, input: { id: string }): Promise<TransferList> {
  const rows = await paymentMovements(ctx.db, ctx.principal, input.id);
  return { object: 'list', data: rows.map((row) => toTransferOut(row, ctx.config.explorers)), has_more: false };
}
