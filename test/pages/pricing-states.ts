import { checkoutFormPage, checkoutPage } from '../../src/dashboard/pages/checkouts.ts';
import { pricingFormOf, pricingTableFormPage } from '../../src/dashboard/pages/pricing-tables.ts';
import type { CheckoutOut } from '../../src/resources/checkouts/schemas.ts';
import { roaster, seconds, signedIn, VIEWER, type Fill, type PageState } from './state-kit.ts';

// The dashboard's pricing tables and widgets in each state a person meets them: what the merchant
// typed (names, plans, features, labels) goes through `v` (see states.ts).

export function pricingTable(v: Fill, more: Partial<CheckoutOut> = {}): CheckoutOut {
  return {
    id: 'chk_T7mQ2wXk9Rn4Lp8Vc3Bz6HsK', object: 'checkout', kind: 'pricing_table', slug: 'coffee-club-m4x8b2qa', url: 'https://pay.kestrelcoffee.example/c/coffee-club-m4x8b2qa',
    livemode: false, active: true, name: v('Coffee club'), description: v('Fresh beans on repeat, roasted every Tuesday.'), amount: '9.00', currency: 'EUR',
    success_url: null, theme: 'light', button_label: null, crypto: true, routing: { choice: 'smart', provider: null, fallback: false }, collect: null,
    options: [v('Monthly'), v('Yearly')],
    plans: [
      { id: 'plan_1', name: v('Taster'), description: null, prices: [{ amount: '9.00', unit: v('month') }, { amount: '90.00', unit: v('year') }], features: [v('One bag a month')], recommended: false },
      { id: 'plan_2', name: v('Regular'), description: v('For a daily cup'), prices: [{ amount: '18.00', unit: v('month') }, { amount: '180.00', unit: v('year') }], features: [v('Two bags a month'), v('Free shipping')], recommended: true },
      { id: 'plan_3', name: v('Café'), description: v('For a small café'), prices: [{ amount: '60.00', unit: v('month') }, { amount: '600.00', unit: v('year') }], features: [v('Eight bags a month')], recommended: false },
    ],
    created: seconds('2026-02-10T09:15:00Z'), updated: seconds('2026-03-01T12:00:00Z'), ...more,
  };
}

const frame = (v: Fill, role: 'owner' | 'viewer' = 'owner') => ({ business: roaster(v), mode: 'test' as const, role });
const NEW = { theme: 'light', crypto: 'on', routing_choice: 'smart', routing_fallback: 'on' };

export const PRICING_STATES: readonly PageState[] = [
  signedIn({ fn: pricingTableFormPage, name: 'pricing-table-new', main: true, shows: 'the form of a new pricing table: the switch, four plan places, the recommended plan' },
    (v, s) => pricingTableFormPage({ session: s, ...frame(v), values: { ...NEW, unit_1: v('month') } })),
  signedIn({ fn: pricingTableFormPage, name: 'pricing-table-edit-refused', shows: 'changing a pricing table, a plan\'s second price refused beside its field' },
    (v, s) => pricingTableFormPage({ session: s, ...frame(v), checkout: pricingTable(v), values: { ...pricingFormOf(pricingTable(v)), plan_2_price_2: '' },
      error: { field: 'plan_2_price_2', message: v('Enter an amount like 25.00: from 1.00 to 100000.00, with at most two decimals.') } })),
  signedIn({ fn: pricingTableFormPage, name: 'pricing-table-no-plans', shows: 'a pricing table refused for having no plan' },
    (v, s) => pricingTableFormPage({ session: s, ...frame(v), values: { ...NEW, name: v('Coffee club'), currency: 'EUR' }, error: { field: 'plans', message: v('A pricing table needs at least one plan.') } })),
  signedIn({ fn: checkoutPage, name: 'pricing-table-detail', main: true, shows: 'a pricing table: its plans and prices per option, the buy-button snippet' },
    (v, s) => checkoutPage({ session: s, ...frame(v), checkout: pricingTable(v), notice: 'created' })),
  signedIn({ fn: checkoutPage, name: 'pricing-table-viewer', shows: 'a pricing table as a viewer sees it (no change offered)' },
    (v, s) => checkoutPage({ session: s, ...frame(v, 'viewer'), checkout: pricingTable(v, { options: null, plans: pricingTable(v).plans.map((plan) => ({ ...plan, prices: plan.prices.slice(0, 1) })) }) }), VIEWER),
  signedIn({ fn: checkoutFormPage, name: 'widget-new', shows: 'the form of a new widget' },
    (v, s) => checkoutFormPage({ session: s, ...frame(v), kind: 'widget', values: NEW })),
  signedIn({ fn: checkoutPage, name: 'widget-detail', shows: 'a widget: its buy-button snippet and settings' },
    (v, s) => checkoutPage({ session: s, ...frame(v), checkout: { ...pricingTable(v), kind: 'widget', name: v('Espresso beans'), options: null, plans: [], amount: '14.00', button_label: v('Get beans') } })),
];
