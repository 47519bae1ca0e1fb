import { z } from 'zod';
import { RECENT_SIGN_IN_MS } from '../../auth/sessions.ts';
import type { Principal } from '../../auth/principal.ts';
import { MINUTE, unixSeconds } from '../../core/clock.ts';
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { coded } from '../../core/validation.ts';
import { defineAction } from '../../verbs/action.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { changeBusiness } from './change.ts';
import { PayoutWalletField } from './schemas.ts';

// A payout wallet change is deliberate and known (issue 21): every later Live payment is
// forwarded there, so an owner's new address waits until that owner confirms it on a page showing
// it in full beside the old one, with a sign-in of the last few minutes (a stolen cookie alone
// is not enough); then every owner is mailed (change.ts). The operator's CLI change is direct,
// and mailed the same way.

/** How long a change waits for its confirmation (the sign-in again it may need fits well within). */
export const PAYOUT_WALLET_CHANGE_TTL_MS = 30 * MINUTE;

export interface PayoutWalletChangeOut {
  id: string;
  object: 'payout_wallet_change';
  old_wallet: string | null;
  new_wallet: string | null;
  expires_at: number;
  /** Whether the person's sign-in is recent enough to confirm now; if not, they sign in again first. */
  recent_sign_in: boolean;
}

/** Whether the caller signed in within the last few minutes (a person's session says when). */
function signedInRecently(principal: Principal, now: Date): boolean {
  const { actor } = principal;
  return actor.kind === 'person' && actor.signedInAt !== undefined && now.getTime() - actor.signedInAt.getTime() <= RECENT_SIGN_IN_MS;
}

const ChangeIdInput = z.object({ id: z.string(coded('invalid_request', 'id must be a string.')).min(1).max(64) });

/** The caller's own change, still waiting and not expired, in the caller's business; else not_found. */
async function waitingChange(ctx: OperationContext, id: string) {
  const { principal } = ctx;
  const personId = principal.actor.kind === 'person' ? principal.actor.personId : '';
  const change = await ctx.db.selectFrom('payout_wallet_changes').selectAll()
    .where('id', '=', id).where('business_id', '=', principal.businessId).where('person_id', '=', personId)
    .where('confirmed_at', 'is', null).where('expires_at', '>', ctx.clock.now()).executeTakeFirst();
  if (!change) throw new ApiError('not_found', 'This payout wallet change is not waiting for you: it expired, was confirmed, or is not yours. Start again from Settings.');
  return change;
}

function toChangeOut(row: { id: string; old_wallet: string | null; new_wallet: string | null; expires_at: Date }, recent: boolean): PayoutWalletChangeOut {
  return { id: row.id, object: 'payout_wallet_change', old_wallet: row.old_wallet, new_wallet: row.new_wallet, expires_at: unixSeconds(row.expires_at), recent_sign_in: recent };
}

/** An owner asks to change the payout wallet: nothing changes until they confirm it. */
export const requestPayoutWalletChange = defineAction({
  name: 'request_payout_wallet_change',
  title: 'Ask to change the payout wallet (confirmed on the next page)',
  role: 'owner',
  modeScoped: false,
  effect: 'changes',
  peopleOnly: true,
  input: z.object({ payout_wallet: PayoutWalletField }),
  async run(ctx, input) {
    const { principal } = ctx;
    const now = ctx.clock.now();
    const row = await ctx.db.insertInto('payout_wallet_changes').values({
      id: newId('pwc'), business_id: principal.businessId, person_id: principal.actor.kind === 'person' ? principal.actor.personId : '',
      old_wallet: principal.business.payout_wallet, new_wallet: input.payout_wallet,
      created_at: now, expires_at: new Date(now.getTime() + PAYOUT_WALLET_CHANGE_TTL_MS),
    }).returningAll().executeTakeFirstOrThrow();
    return toChangeOut(row, signedInRecently(principal, now));
  },
});

/** The change waiting for the caller's confirmation, as its page shows it. */
export const readPayoutWalletChange = defineAction({
  name: 'read_payout_wallet_change',
  title: 'Read a payout wallet change waiting for confirmation',
  role: 'owner',
  modeScoped: false,
  effect: 'reads',
  peopleOnly: true,
  input: ChangeIdInput,
  async run(ctx, input) {
    const change = await waitingChange(ctx, input.id);
    // The wallet as it is now: another change may have been confirmed since this one was asked.
    return toChangeOut({ ...change, old_wallet: ctx.principal.business.payout_wallet }, signedInRecently(ctx.principal, ctx.clock.now()));
  },
});

/** The owner confirms their change, with a recent sign-in: the wallet changes and every owner is mailed. */
export const confirmPayoutWalletChange = defineAction({
  name: 'confirm_payout_wallet_change',
  title: 'Confirm a payout wallet change',
  role: 'owner',
  modeScoped: false,
  effect: 'changes',
  peopleOnly: true,
  input: ChangeIdInput,
  async run(ctx, input) {
    if (!signedInRecently(ctx.principal, ctx.clock.now())) {
      throw new ApiError('recent_sign_in_required', `Changing where money goes needs a sign-in within the last ${RECENT_SIGN_IN_MS / MINUTE} minutes: sign in again to confirm.`);
    }
    const change = await waitingChange(ctx, input.id);
    // Used once: claimed in the transaction that changes the wallet, so two confirmations cannot both apply.
    return changeBusiness(ctx, { payout_wallet: change.new_wallet }, 'business.settings_updated', async (trx) => {
      const claimed = await trx.updateTable('payout_wallet_changes').set({ confirmed_at: ctx.clock.now() })
        .where('id', '=', change.id).where('confirmed_at', 'is', null).returning('id').executeTakeFirst();
      if (!claimed) throw new ApiError('not_found', 'This payout wallet change was already confirmed.');
    });
  },
});
