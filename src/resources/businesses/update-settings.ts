import { defineAction } from '../../verbs/action.ts';
import { UpdateSettingsInput } from './schemas.ts';
import { changeBusiness } from './change.ts';

/** The account's settings its owners decide: taking payments (pause), the payout wallet, crypto, integrations. */
export const updateBusinessSettings = defineAction({
  name: 'update_business_settings',
  title: 'Change the account\'s settings',
  role: 'owner',
  modeScoped: false,
  effect: 'changes',
  input: UpdateSettingsInput,
  run: (ctx, input) => changeBusiness(ctx, input, 'business.settings_updated'),
});
