import { z } from 'zod';
import { defineAction } from '../../verbs/action.ts';
import { agentConnections } from './queries.ts';
import { toAgentConnectionOut } from './schemas.ts';

/** The agents connected to the caller's business in its mode, newest first, disconnected ones included (the latest 200). */
export const listAgentConnections = defineAction({
  name: 'list_agent_connections',
  title: 'List connected agents',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: z.object({}),
  async run(ctx) {
    const rows = await agentConnections(ctx.db, ctx.principal).orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').limit(200).execute();
    return rows.map(toAgentConnectionOut);
  },
});
