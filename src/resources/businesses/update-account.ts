import { defineAction } from '../../verbs/action.ts';
import { changeBusiness } from './change.ts';
import { UpdateAccountInput } from './schemas.ts';

/**
 * The operator's change of an account, in one transaction: its settings, and what only the
 * operator decides (suspending or archiving it, its fee).
 */
export const updateBusiness = defineAction({
  name: 'update_business',
  title: 'Change the account\'s settings, status or fee',
  role: 'operator',
  modeScoped: false,
  effect: 'changes',
  input: UpdateAccountInput,
  run: (ctx, input) => changeBusiness(ctx, input, 'business.updated'),
});
