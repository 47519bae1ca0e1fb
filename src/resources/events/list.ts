import { JsonText } from '../../core/json-text.ts';
import { toPage, type Page } from '../../core/pagination.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { listEventRows } from './queries.ts';
import type { EventOut, ListEventsInput } from './schemas.ts';

export async function listEvents(ctx: OperationContext, input: ListEventsInput): Promise<Page<EventOut>> {
  const rows = await listEventRows(ctx.db, ctx.principal, input, ctx.clock.now());
  // The stored body is the event as delivered (and as erasure left it): written out as those bytes.
  return toPage(rows, input.limit, (row) => new JsonText(row.body) as unknown as EventOut);
}
