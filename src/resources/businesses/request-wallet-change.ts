import { z } from 'zod';
import { defineAction } from '../../verbs/action.ts';
import { PayoutWalletField } from './schemas.ts';
import { askerOf } from './wallet-change.ts';

/**
 * An owner asks for a new payout wallet (checked, EIP-55 included); nothing changes until they
 * confirm it (confirm-wallet-change.ts). A new ask replaces their older one; asking for the
 * wallet the account already has leaves nothing to confirm (`pending: false`).
 */
export const requestPayoutWalletChange = defineAction({
  name: 'request_payout_wallet_change',
  title: 'Ask to change the payout wallet (confirmed in a second step)',
  role: 'owner',
  modeScoped: false,
  effect: 'changes',
  peopleOnly: true,
  input: z.object({ payout_wallet: PayoutWalletField }),
  async run(ctx, input) {
    const { businessId, personId } = askerOf(ctx);
    const unchanged = input.payout_wallet === ctx.principal.business.payout_wallet;
    const mine = ctx.db.deleteFrom('payout_wallet_changes').where('business_id', '=', businessId).where('person_id', '=', personId);
    if (unchanged) {
      await mine.execute();
      return { pending: false, payout_wallet: input.payout_wallet };
    }
    const requestedAt = ctx.clock.now();
    await ctx.db.insertInto('payout_wallet_changes')
      .values({ business_id: businessId, person_id: personId, payout_wallet: input.payout_wallet, requested_at: requestedAt })
      .onConflict((conflict) => conflict.columns(['business_id', 'person_id']).doUpdateSet({ payout_wallet: input.payout_wallet, requested_at: requestedAt }))
      .execute();
    return { pending: true, payout_wallet: input.payout_wallet };
  },
});
