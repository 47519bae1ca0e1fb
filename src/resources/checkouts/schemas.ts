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
    choice: z.enum(ROUTING_CHOICES, routingError('routing.choice must be smart, buyer or fixed.')),
    provider: z.string(routingError('routing.provider must be a provider identifier.')).nullish(),
    fallback: z.boolean(routingError('routing.fallback must be true or false.')).optional(),
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
export const RoutingOut = z.object({ choice: z.enum(ROUTING_CHOICES), provider: z.string().nullable(), fallback: z.boolean() });

export const CreateCheckoutInput = z.object({
  name: requiredText('name', 80, 'missing_name').describe('Shown to buyers; up to 80 characters.'),
  amount: amountField,
  currency: currencyField,
  description: optionalText('description', 280, 'invalid_description').describe('Shown under the name; up to 280 characters.'),
  success_url: urlField('success_url').nullish().describe('Landing address after payment; https:// in Live mode.'),
  kind: z.literal('page', coded('invalid_kind', 'The API creates only checkouts of kind "page".')).default('page'),
  theme: z.enum(['light', 'dark'], coded('invalid_theme', 'theme must be "light" or "dark".')).default('light'),
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
  kind: z.enum(CHECKOUT_KINDS, coded('invalid_filter', 'kind must be page, pricing_table or widget.')).optional(),
});
export type ListCheckoutsInput = z.output<typeof ListCheckoutsInput>;

const PlanOut = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  prices: z.array(z.object({ amount: z.string(), unit: z.string() })),
  features: z.array(z.string()),
  recommended: z.boolean(),
});

export const CheckoutOut = z.object({
  id: z.string(),
  object: z.literal('checkout'),
  kind: z.enum(CHECKOUT_KINDS),
  slug: z.string(),
  url: z.string(),
  livemode: z.boolean(),
  active: z.boolean(),
  name: z.string(),
  description: z.string().nullable(),
  amount: z.string(),
  currency: z.string(),
  success_url: z.string().nullable(),
  theme: z.enum(['light', 'dark']),
  button_label: z.string().nullable(),
  crypto: z.boolean(),
  routing: RoutingOut,
  collect: collectOut,
  options: z.array(z.string()).nullable(),
  plans: z.array(PlanOut),
  created: z.number().int(),
  updated: z.number().int(),
});
export type CheckoutOut = z.infer<typeof CheckoutOut>;

export const CheckoutList = pageOf(CheckoutOut);

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
