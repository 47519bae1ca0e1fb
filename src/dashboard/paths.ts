import type { Mode } from './requests.ts';

// The dashboard's addresses: every page of a business lives under its mode, /test or /live (the
// Test/Live switch), so a person stays in the mode they chose; what belongs to the business as a
// whole (the team) reads the same in both.
export const DASHBOARD = '/dashboard';

/** A business's areas; home is where the business list and the bare `/…/<mode>` address land. */
export const BUSINESS_AREAS = ['home', 'payments', 'orders', 'customers', 'payment_links', 'checkouts', 'webhooks', 'agents', 'keys', 'team', 'settings'] as const;
export type BusinessArea = (typeof BUSINESS_AREAS)[number];

export const AREA_NAMES: Record<BusinessArea, string> = {
  home: 'Home', payments: 'Payments', orders: 'Orders', customers: 'Customers', payment_links: 'Payment links', checkouts: 'Checkouts', webhooks: 'Webhooks',
  agents: 'Connected agents', keys: 'API keys', team: 'Team', settings: 'Settings',
};

/** A link of the navigation: an area, or a part of one (`rest`: a filter or a section of its page). */
export interface NavLink {
  area: BusinessArea;
  name: string;
  rest?: string;
}

const link = (area: BusinessArea, name = AREA_NAMES[area], rest?: string): NavLink => (rest === undefined ? { area, name } : { area, name, rest });

/**
 * The navigation after Home: areas grouped by what a person comes to do, so the groups fit one
 * line at any desktop width. Every area is in one group; the first link of an area is the one
 * marked as the page a person is on.
 */
export const NAV_GROUPS: ReadonlyArray<{ name: string; links: readonly NavLink[] }> = [
  { name: 'Payments', links: [link('payments'), link('orders'), link('customers')] },
  { name: 'Selling', links: [link('payment_links'), link('checkouts'), link('checkouts', 'Pricing tables', '?kind=pricing_table')] },
  { name: 'Developers', links: [link('keys'), link('webhooks'), link('agents')] },
  { name: 'Account', links: [link('team'), link('settings'), link('settings', 'Activity', '#activity-heading')] },
];

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
