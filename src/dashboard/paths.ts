import type { Mode } from './requests.ts';

// The dashboard's addresses: every page of a business lives under its mode, /test or /live (the
// Test/Live switch), so a person stays in the mode they chose; what belongs to the business as a
// whole (the team) reads the same in both.
export const DASHBOARD = '/dashboard';

export type BusinessArea = 'keys' | 'agents' | 'team';

export function businessPath(businessId: string, area: BusinessArea, mode: Mode): string {
  return `${DASHBOARD}/businesses/${encodeURIComponent(businessId)}/${mode}/${area}`;
}
