import type { Mode } from './requests.ts';

// The dashboard's addresses: every page of a business lives under its mode, /test or /live (the
// Test/Live switch), so a person stays in the mode they chose; what belongs to the business as a
// whole (the team) reads the same in both.
export const DASHBOARD = '/dashboard';

/** A business's areas, in the order the navigation shows them. */
export const BUSINESS_AREAS = ['payments', 'orders', 'customers', 'payment_links', 'checkouts', 'webhooks', 'agents', 'keys', 'team', 'settings'] as const;
export type BusinessArea = (typeof BUSINESS_AREAS)[number];

export const AREA_NAMES: Record<BusinessArea, string> = {
  payments: 'Payments', orders: 'Orders', customers: 'Customers', payment_links: 'Payment links', checkouts: 'Checkouts', webhooks: 'Webhooks',
  agents: 'Connected agents', keys: 'API keys', team: 'Team', settings: 'Settings',
};

export function businessPath(businessId: string, area: BusinessArea, mode: Mode): string {
  return `${DASHBOARD}/businesses/${encodeURIComponent(businessId)}/${mode}/${area}`;
}

/** One object of an area: `/…/<area>/<id>`, and what follows it (`/accept`). */
export function objectPath(businessId: string, area: BusinessArea, mode: Mode, id: string, rest = ''): string {
  return `${businessPath(businessId, area, mode)}/${encodeURIComponent(id)}${rest}`;
}

/** The route of an area's pages (`:business`, `:mode`), for the handlers. */
export function areaRoute(area: BusinessArea, rest = ''): string {
  return `${DASHBOARD}/businesses/:business/:mode/${area}${rest}`;
}
