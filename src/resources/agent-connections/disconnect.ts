import { disconnectConnection } from '../../agents/connections.ts';
import { defineAction } from '../../verbs/action.ts';
import { getAgentConnection } from './queries.ts';
import { AgentConnectionIdInput, toAgentConnectionOut } from './schemas.ts';

/** Disconnects an agent of the caller's business and mode: its very next request is refused (spec 5.6). */
export const disconnectAgent = defineAction({
  name: 'disconnect_agent',
  title: 'Disconnect an agent',
  role: 'developer',
  modeScoped: true,
  effect: 'withdraws',
  input: AgentConnectionIdInput,
  async run(ctx, input) {
    const connection = await getAgentConnection(ctx.db, ctx.principal, input.id);
    await disconnectConnection(ctx, connection, 'disconnected_in_dashboard', ctx.principal);
    return toAgentConnectionOut(await getAgentConnection(ctx.db, ctx.principal, input.id));
  },
});
