import { defineAction } from '../../verbs/action.ts';
import { UpdateTermsInput } from './schemas.ts';
import { changeBusiness } from './update.ts';

/** What only the service's operator decides: suspending or archiving the account, and its fee. */
export const updateBusinessTerms = defineAction({
  name: 'update_business_terms',
  title: 'Change the account\'s status or fee',
  role: 'operator',
  modeScoped: false,
  input: UpdateTermsInput,
  run: (ctx, input) => changeBusiness(ctx, input, 'business.terms_updated'),
});
