import { listAccountActivity } from './activity.ts';
import { updateBusinessSettings } from './update-settings.ts';
import { updateBusiness } from './update-account.ts';

// The account itself: its owners' settings; the operator's change of everything, status and fee included.
export const businessActions = [updateBusinessSettings, updateBusiness, listAccountActivity];
