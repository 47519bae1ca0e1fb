import type { OperationContext } from '../../verbs/context.ts';
import { eventForCaller } from './for-caller.ts';
import { getEvent } from './queries.ts';
import type { EventOut } from './schemas.ts';

export async function retrieveEvent(ctx: OperationContext, input: { id: string }): Promise<EventOut> {
  return eventForCaller(ctx.principal, (await getEvent(ctx.db, ctx.principal, input.id, ctx.clock.now())).body);
}
