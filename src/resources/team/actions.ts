import { listMembers } from './list.ts';
import { readNotificationPreferences, setNotificationPreferences } from './notifications.ts';
import { setMemberRole } from './set-role.ts';

// The team: who belongs to the business and with which role, and each person's own mail
// preferences. Business-wide, in both modes.
export const teamActions = [listMembers, setMemberRole, readNotificationPreferences, setNotificationPreferences];
