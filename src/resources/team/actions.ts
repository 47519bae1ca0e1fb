import { listMembers } from './list.ts';
import { setMemberRole } from './set-role.ts';

// The team: who belongs to the business and with which role. Business-wide, in both modes.
export const teamActions = [listMembers, setMemberRole];
