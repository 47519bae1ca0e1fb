import type { Mode } from './requests.ts';

// The dashboard's addresses. What belongs to one mode lives under /test or /live (the Test/Live
// switch); the team belongs to the business as a whole.
export const DASHBOARD = '/dashboard';

export function businessPath(businessId: string, area: 'team'): string;
export function businessPath(businessId: string, area: 'keys' | 'agents', mode: Mode): string;
export function businessPath(businessId: string, area: string, mode?: Mode): string {
  const base = `${DASHBOARD}/businesses/${encodeURIComponent(businessId)}`;
  return mode === undefined ? `${base}/${area}` : `${base}/${mode}/${area}`;
}
