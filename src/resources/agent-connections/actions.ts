import { approveAgentRequest } from './approve.ts';
import { disconnectAgent } from './disconnect.ts';
import { listAgentConnections } from './list.ts';

// Connected agents (spec 5.4, 5.6): approved, seen and disconnected by people who manage keys.
export const agentConnectionActions = [listAgentConnections, approveAgentRequest, disconnectAgent];
