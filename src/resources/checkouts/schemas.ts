import { z } from 'zod';
import { unixSeconds } from '../../core/clock.ts';
import { formatAmount } from '../../core/money.ts';
import { listParams, pageOf } from '../../core/pagination.ts';
import { coded } from '../../core/validation.ts';
import type { CheckoutRow, Routing } from '../../db/schema.ts';
import { CARD_PROVIDER_IDS, findProvider } from '../providers/catalogue.ts';
import { routingOut } from '../providers/routing.ts';
import { amountField, collectField, collectOut, currencyField, optionalText, requiredText, urlField } from '../shared/fields.ts';
import { idInput } from '../shared/ids.ts';

export const CHECKOUT_KINDS = ['page', 'pricing_table', 'widget'] as const;

const routingError = (message: string) => coded('invalid_routing', message);
const ROUTING_CHOICES = ['smart', 'buyer', 'fixed'] as const;

export const routingField = z
  .object({
    choice: z.enum(ROUTING_CHOICES, routingError('routing.choice must be smart, buyer or fixed.'))
      .describe('`smart` (best provider first), `buyer` (the buyer picks) or `fixed` (one provider).'),
    provider: z.string(routingError('routing.provider must be a provider identifier.')).nullish()
      .describe(`For \`fixed\`: a card provider, one of ${CARD_PROVIDER_IDS.join(', ')}.`),
    fallback: z.boolean(routingError('routing.fallback must be true or false.')).optional()
      .describe('For `fixed`: route a buyer that provider cannot take smartly instead of turning them away (default true).'),
  }, routingError('routing must be an object with a choice: smart, buyer or fixed.'))
  .transform((routing, ctx): Routing => {
    const provider = routing.provider == null ? undefined : findProvider(routing.provider);
    if ((routing.choice === 'fixed' || routing.provider != null) && !provider?.card) {
      ctx.addIssue({
        code: 'custom',
        path: ['provider'],
        message: routingError(`routing.provider must be a card provider: one of ${CARD_PROVIDER_IDS.join(', ')}.`).error,
      });
      return z.NEVER;
    }
    if (routing.choice !== 'fixed' || !provider) return { choice: routing.choice, provider: null, fallback: false };
    return { choice: 'fixed', provider: provider.id, fallback: routing.fallback ?? true };
  })
  .meta({
    description: 'How buyers are routed to card providers: choice "smart" (default), "buyer" (the buyer picks), or "fixed" ' +
      `with provider (one of ${CARD_PROVIDER_IDS.join(', ')}) and fallback (default true: use smart routing when that provider cannot take a buyer).`,
  });

/** How a checkout or session routes buyers, as the API returns it. */
export const RoutingOut = z.object({
  choice: z.enum(ROUTING_CHOICES).describe('`smart` (best provider first), `buyer` (the buyer picks) or `fixed` (one provider).'),
  provider: z.string().nullable().describe('For `fixed`: the card provider; null otherwise.'),
  fallback: z.boolean().describe('For `fixed`: whether a buyer that provider cannot take is routed smartly instead of turned away.'),
}).describe('How buyers are routed to card providers.');

export const CreateCheckoutInput = z.object({
  name: requiredText('name', 80, 'missing_name').describe('Shown to buyers; up to 80 characters.'),
  amount: amountField.describe('The price: a decimal string from "1.00" to "100000.00", at most two decimals.'),
  currency: currencyField.describe('USD, EUR, GBP, CAD or AUD, in any letter case.'),
  description: optionalText('description', 280, 'invalid_description').describe('Shown under the name; up to 280 characters.'),
  success_url: urlField('success_url').nullish()
    .describe('Landing address after payment: a full address without username or password, up to 2,048 characters; https:// in Live mode.'),
  kind: z.literal('page', coded('invalid_kind', 'The API creates only checkouts of kind "page".')).default('page')
    .describe('Only `page`: pricing tables and widgets are made in the dashboard.'),
  theme: z.enum(['light', 'dark'], coded('invalid_theme', 'theme must be "light" or "dark".')).default('light')
    .describe('The page\'s colours: `light` (default) or `dark`.'),
  button_label: optionalText('button_label', 32, 'invalid_button_label').describe('Pay button text; up to 32 characters. Default: the price.'),
  crypto: z.boolean(coded('invalid_value', 'crypto must be true or false.')).default(true)
    .describe('Whether buyers may pay in crypto when crypto payments are enabled for the account (default true).'),
  routing: routingField.optional(),
  collect: collectField,
});
export type CreateCheckoutInput = z.output<typeof CreateCheckoutInput>;

export const CheckoutIdInput = idInput('chk');

export const ListCheckoutsInput = z.object({
  ...listParams,
  kind: z.enum(CHECKOUT_KINDS, coded('invalid_filter', 'kind must be page, pricing_table or widget.')).optional()
    .describe('Only checkouts of this kind: page, pricing_table or widget.'),
});
export type ListCheckoutsInput = z.output<typeof ListCheckoutsInput>;

export const PlanPriceOut = z.object({
  amount: z.string().describe('The price, a decimal string with two decimals.'),
  unit: z.string().describe('What the price is for, such as "month".'),
}).describe('One price of a plan, for one side of the table\'s switch.');

export const PlanOut = z.object({
  id: z.string().describe('`plan_1`, `plan_2`, … in order.'),
  name: z.string().describe('The plan\'s name.'),
  description: z.string().nullable().describe('Shown under the name.'),
  prices: z.array(PlanPriceOut).describe('One price per option of the switch (one when there is no switch).'),
  features: z.array(z.string()).describe('What the plan includes, one line each.'),
  recommended: z.boolean().describe('Whether the table marks it as recommended (at most one is).'),
}).describe('A pricing table\'s plan.');

export const CheckoutOut = z.object({
  id: z.string().describe('`chk_…`.'),
  object: z.literal('checkout').describe('Always `checkout`.'),
  kind: z.enum(CHECKOUT_KINDS).describe('`page`, `pricing_table` or `widget`; the API creates only `page`.'),
  slug: z.string().describe('The identifier a buy button takes (its `checkout` attribute); kept when the price changes.'),
  url: z.string().describe('The hosted checkout page.'),
  livemode: z.boolean().describe('false = Test, true = Live.'),
  active: z.boolean().describe('false once deleted in the dashboard; a deleted checkout takes no new buyers.'),
  name: z.string().describe('Shown to buyers.'),
  description: z.string().nullable().describe('Shown under the name.'),
  amount: z.string().describe('The price, a decimal string with two decimals; for a pricing table, its lowest plan price.'),
  currency: z.string().describe('USD, EUR, GBP, CAD or AUD.'),
  success_url: z.string().nullable().describe('The landing address after payment.'),
  theme: z.enum(['light', 'dark']).describe('`light` or `dark`.'),
  button_label: z.string().nullable().describe('The pay button\'s text; null means the default label with the price.'),
  crypto: z.boolean().describe('Whether buyers may pay in crypto, when crypto payments are enabled for the account.'),
  routing: RoutingOut,
  collect: collectOut,
  options: z.array(z.string()).nullable().describe('A pricing table\'s two-way switch, as its two labels; null otherwise.'),
  plans: z.array(PlanOut).describe('A pricing table\'s plans; empty for pages and widgets.'),
  created: z.number().int().describe('When it was created, Unix seconds.'),
  updated: z.number().int().describe('When it last changed, Unix seconds.'),
}).describe('A checkout: a reusable hosted page with a fixed price. Every buyer who pays gets their own payment and order.');
export type CheckoutOut = z.infer<typeof CheckoutOut>;

export const CheckoutList = pageOf(CheckoutOut, 'checkouts');

export function toCheckoutOut(row: CheckoutRow, baseUrl: string): CheckoutOut {
  return {
    id: row.id,
    object: 'checkout',
    kind: row.kind,
    slug: row.slug,
    url: `${baseUrl}/c/${row.slug}`,
    livemode: row.livemode,
    active: row.active,
    name: row.name,
    description: row.description,
    amount: formatAmount(row.amount_minor),
    currency: row.currency,
    success_url: row.success_url,
    theme: row.theme,
    button_label: row.button_label,
    crypto: row.crypto,
    routing: routingOut(row.routing),
    collect: row.collect,
    options: row.options,
    plans: row.plans as CheckoutOut['plans'],
    created: unixSeconds(row.created_at),
    updated: unixSeconds(row.updated_at),
  };
}
