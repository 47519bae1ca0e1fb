import { z } from 'zod';
import { recordActivity } from '../../audit/activity.ts';
import { ApiError } from '../../core/errors.ts';
import { coded } from '../../core/validation.ts';
import { defineAction } from '../../verbs/action.ts';
import { idInput } from '../shared/ids.ts';
import { getCustomerRecord } from './queries.ts';

// The private note people keep on a customer (spec 2.3): shown only in the dashboard. It lives in
// its own table, which nothing the API, MCP or webhooks read joins; erasing the customer deletes it.

export const NOTE_MAX = 2000;

export const readCustomerNote = defineAction({
  name: 'read_customer_note',
  title: 'Read the private note on a customer',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: idInput('cus'),
  async run(ctx, input): Promise<{ note: string; updated_at: Date } | null> {
    const customer = await getCustomerRecord(ctx.db, ctx.principal, input.id);
    const row = await ctx.db.selectFrom('customer_notes').select(['note', 'updated_at'])
      .where('customer_id', '=', customer.id).where('business_id', '=', ctx.principal.businessId).where('livemode', '=', ctx.principal.livemode)
      .executeTakeFirst();
    return row ?? null;
  },
});

export const setCustomerNote = defineAction({
  name: 'set_customer_note',
  title: 'Save the private note on a customer',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: idInput('cus').extend({
    note: z.string(coded('invalid_request', 'note must be text.'))
      .refine((text) => [...text].length <= NOTE_MAX, coded('too_long', `The note can be at most ${NOTE_MAX} characters.`)),
  }),
  async run(ctx, input): Promise<{ note: string | null }> {
    const { db, principal } = ctx;
    const now = ctx.clock.now();
    const note = input.note.trim();
    return db.transaction().execute(async (trx) => {
      const customer = await getCustomerRecord(trx, principal, input.id);
      if (customer.erased) throw new ApiError('invalid_state', 'This customer\'s details were erased; nothing more is kept about them.');
      if (note === '') {
        await trx.deleteFrom('customer_notes').where('customer_id', '=', customer.id).execute();
      } else {
        const by = principal.actor.kind === 'person' ? principal.actor.personId : null;
        await trx.insertInto('customer_notes').values({ customer_id: customer.id, business_id: principal.businessId, livemode: principal.livemode, note, updated_at: now, updated_by: by })
          .onConflict((conflict) => conflict.column('customer_id').doUpdateSet({ note, updated_at: now, updated_by: by })).execute();
      }
      await recordActivity(trx, principal, 'customer.note_saved', customer.id, {}, now);
      return { note: note === '' ? null : note };
    });
  },
});
