import { listAccountActivity } from './activity.ts';
import { readGoLiveChecklist } from './go-live.ts';
import { readBusinessHome } from './home.ts';
import { updateBusinessSettings } from './update-settings.ts';
import { updateBusiness } from './update-account.ts';
import { confirmPayoutWalletChange } from './confirm-wallet-change.ts';
import { readPayoutWalletChange } from './read-wallet-change.ts';
import { requestPayoutWalletChange } from './request-wallet-change.ts';

// The account itself: its owners' settings (the payout wallet in two steps: asked, then confirmed);
// the operator's change of everything, status and fee included.
export const businessActions = [updateBusinessSettings, requestPayoutWalletChange, readPayoutWalletChange, confirmPayoutWalletChange, updateBusiness, listAccountActivity, readGoLiveChecklist, readBusinessHome];
