import { z } from 'zod';
import { defineAction } from '../../verbs/action.ts';
import { pendingWalletChange, type PendingWalletChange } from './wallet-change.ts';

/** The caller's payout wallet change waiting for their confirmation, beside the wallet now. */
export const readPayoutWalletChange = defineAction({
  name: 'read_payout_wallet_change',
  title: 'Read the payout wallet change waiting for confirmation',
  role: 'owner',
  modeScoped: false,
  effect: 'reads',
  peopleOnly: true,
  input: z.object({}),
  async run(ctx): Promise<PendingWalletChange> {
    const pending = await pendingWalletChange(ctx.db, ctx);
    return { current: ctx.principal.business.payout_wallet, ...pending };
  },
});
