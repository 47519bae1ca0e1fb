import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { coded } from '../../core/validation.ts';
import type { AgentConnectionRow, KeyAccess } from '../../db/schema.ts';
import { idInput } from '../shared/ids.ts';

export const AgentConnectionIdInput = idInput('con');

export const ApproveAgentRequestInput = z.object({
  request: z.string(coded('invalid_request', 'request must name the sign-in request.')).min(1, coded('invalid_request', 'request must name the sign-in request.')),
  access: z.enum(['full', 'read_only'], coded('invalid_access', 'access must be full or read_only.')),
});

export interface AgentConnectionOut {
  id: string;
  object: 'agent_connection';
  /** What the client calls itself: unverified. */
  client_name: string | null;
  client_id: string;
  livemode: boolean;
  access: KeyAccess;
  scopes: string[];
  approved_by: { person_id: string; email: string };
  created: number;
  last_used: number | null;
  disconnected: number | null;
  disconnected_why: string | null;
}

export function toAgentConnectionOut(row: AgentConnectionRow & { approver_email: string }): AgentConnectionOut {
  return {
    id: row.id,
    object: 'agent_connection',
    client_name: row.client_name,
    client_id: row.client_id,
    livemode: row.livemode,
    access: row.access,
    scopes: row.scopes,
    approved_by: { person_id: row.approved_by, email: row.approver_email },
    created: unixSeconds(row.created_at),
    last_used: unixSecondsOrNull(row.last_used_at),
    disconnected: unixSecondsOrNull(row.disconnected_at),
    disconnected_why: row.disconnected_why,
  };
}
