import { toPage, type Page } from '../../core/pagination.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { eventForCaller } from './for-caller.ts';
import { listEventRows } from './queries.ts';
import type { EventOut, ListEventsInput } from './schemas.ts';

export async function listEvents(ctx: OperationContext, input: ListEventsInput): Promise<Page<EventOut>> {
  const rows = await listEventRows(ctx.db, ctx.principal, input, ctx.clock.now());
  return toPage(rows, input.limit, (row) => eventForCaller(ctx.principal, row.body));
}
