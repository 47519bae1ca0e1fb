import { z } from 'zod';
import { listActivity } from '../../audit/list.ts';
import { coded } from '../../core/validation.ts';
import { defineAction } from '../../verbs/action.ts';

/** The account's activity in the caller's mode, newest first, 50 at a time, each entry naming who acted. */
export const listAccountActivity = defineAction({
  name: 'list_account_activity',
  title: 'Read the account\'s activity',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: z.object({
    before: z.coerce.number(coded('invalid_cursor', 'before must be an entry of the activity.'))
      .int(coded('invalid_cursor', 'before must be an entry of the activity.')).positive(coded('invalid_cursor', 'before must be an entry of the activity.'))
      .max(Number.MAX_SAFE_INTEGER, coded('invalid_cursor', 'before must be an entry of the activity.')).optional(),
  }),
  run: (ctx, input) => listActivity(ctx.db, ctx.principal, input.before),
});
