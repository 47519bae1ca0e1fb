import { z } from 'zod';
import { RECENT_SIGN_IN_MS, signedInRecently } from '../../auth/sessions.ts';
import { ApiError } from '../../core/errors.ts';
import { defineAction } from '../../verbs/action.ts';
import { changeBusiness } from './change.ts';
import { PayoutWalletField } from './schemas.ts';
import { askerOf, pendingWalletChange } from './wallet-change.ts';

/**
 * An owner confirms the payout wallet change they asked for, having seen both addresses in full:
 * `payout_wallet` is the address the confirmation showed, so a newer ask from another tab is
 * never applied unseen. Needs a recent sign-in (a session left open or stolen is not enough);
 * every owner is mailed and the activity names the old and new wallet (changeBusiness).
 */
export const confirmPayoutWalletChange = defineAction({
  name: 'confirm_payout_wallet_change',
  title: 'Confirm the payout wallet change',
  role: 'owner',
  modeScoped: false,
  effect: 'changes',
  peopleOnly: true,
  input: z.object({ payout_wallet: PayoutWalletField }),
  async run(ctx, input) {
    const { businessId, personId } = askerOf(ctx);
    const { actor } = ctx.principal;
    if (actor.kind !== 'person' || !signedInRecently(actor.signedInAt, ctx.clock.now())) {
      throw new ApiError('insufficient_role', `Changing the payout wallet needs a sign-in within the last ${RECENT_SIGN_IN_MS / 60_000} minutes: sign in again, then confirm.`);
    }
    return changeBusiness(ctx, { payout_wallet: input.payout_wallet }, 'business.payout_wallet_changed', async (trx) => {
      const pending = await pendingWalletChange(trx, ctx, true);
      if (pending.payout_wallet !== input.payout_wallet) {
        throw new ApiError('invalid_state', `The change waiting for your confirmation is to ${pending.payout_wallet ?? 'no wallet'}, not this address. Review it again.`, 'payout_wallet');
      }
      await trx.deleteFrom('payout_wallet_changes').where('business_id', '=', businessId).where('person_id', '=', personId).execute();
    });
  },
});
