import { approveAgentRequest } from './approve.ts';
import { disconnectAgent } from './disconnect.ts';
import { listAgentConnections } from './list.ts';
import { decideAgentApproval, listPendingApprovals, readAgentApproval, readAgentConnection, updateAgentPolicy } from './policy.ts';

// Connected agents (spec 5.4, 5.6): approved, seen and disconnected by people who manage keys.
// Their spend policies and the approvals their calls beyond them wait for (issue 24).
export const agentConnectionActions = [
  listAgentConnections, approveAgentRequest, disconnectAgent,
  readAgentConnection, updateAgentPolicy, listPendingApprovals, readAgentApproval, decideAgentApproval,
];
