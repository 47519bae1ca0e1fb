import { sql } from 'kysely';
import type { OperationContext } from '../../verbs/context.ts';
import { ApiError } from '../../core/errors.ts';
import { applyMove } from '../payments/machine.ts';
import { readStatus } from '../shared/payment-status.ts';
import { assertWritable } from '../shared/business-rules.ts';
import { getPaymentLink } from './queries.ts';
import { toPaymentLinkOut, type PaymentLinkOut } from './schemas.ts';

/**
 * Closes a link nobody has started paying at a card provider (spec 4.1, 3 rules 2-3), with
 * payment.canceled. The move is conditional, so a cancel racing a payer's move to a provider
 * applies at most once; canceling again returns the link unchanged.
 */
export async function cancelPaymentLink(ctx: OperationContext, input: { id: string }): Promise<PaymentLinkOut> {
  const { db, principal } = ctx;
  assertWritable(principal);
  const now = ctx.clock.now();
  const link = await getPaymentLink(db, principal, input.id);
  const canceled = link.canceled_at === null && await db.transaction().execute((trx) =>
    applyMove(trx, ctx, link.id, 'cancel', {
      set: { canceled_at: now },
      where: sql<boolean>`provider_reached_at IS NULL AND expires_at > ${now}`,
    }));
  if (canceled) return toPaymentLinkOut(canceled, ctx.config.baseUrl, now);

  const row = await getPaymentLink(db, principal, input.id);
  if (row.canceled_at !== null) return toPaymentLinkOut(row, ctx.config.baseUrl, now);
  const status = readStatus(row, now);
  const why = row.provider_reached_at !== null || status === 'pending'
    ? 'the payer has gone to a card provider and their payment may be on its way'
    : `the link is already ${status}`;
  throw new ApiError('not_cancelable', `This payment link cannot be canceled: ${why}.`);
}
