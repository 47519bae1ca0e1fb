import { JsonText } from '../../core/json-text.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { getEvent } from './queries.ts';
import type { EventOut } from './schemas.ts';

export async function retrieveEvent(ctx: OperationContext, input: { id: string }): Promise<EventOut> {
  // The stored body is the event as delivered (and as erasure left it): written out as those bytes.
  return new JsonText((await getEvent(ctx.db, ctx.principal, input.id, ctx.clock.now())).body) as unknown as EventOut;
}
