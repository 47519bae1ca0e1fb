import { z } from 'zod';
import { ApiError } from '../../core/errors.ts';
import { formatAmount, parseAmount } from '../../core/money.ts';
import { characters, coded, parseOrThrow } from '../../core/validation.ts';
import type { CheckoutRow } from '../../db/schema.ts';
import { amountField, optionalText, requiredText } from '../shared/fields.ts';

// A pricing table's plans and its two-way switch (spec 2.2 `plans`, `options`), as the dashboard
// sets them: one to four plans, each with one price per option (one price without options), at
// most one recommended. The table's `amount` is its lowest plan price. Stored as the API shows
// them (amounts as decimal strings), so the checkout object reads them back unchanged.

export const MAX_PLANS = 4;
export const MAX_FEATURES = 10;

const plansError = (message: string) => coded('invalid_plans', message);

const optionLabel = z.string(coded('invalid_options', 'Each option must be a label.'))
  .transform((text) => text.trim())
  .refine((text) => text !== '' && characters(text) <= 20, coded('invalid_options', 'Each option label must be 1 to 20 characters.'));

export const OptionsInput = z.array(optionLabel, coded('invalid_options', 'options must be two labels, such as ["Monthly", "Yearly"].'))
  .length(2, coded('invalid_options', 'options must be exactly two labels, such as ["Monthly", "Yearly"].'))
  .nullable();

const PriceInput = z.object({
  amount: amountField,
  unit: requiredText('unit', 20, 'invalid_plans').transform((text) => text.trim()),
}, plansError('Each price must have an amount and a unit.'));

const PlanInput = z.object({
  name: requiredText('name', 40, 'missing_name').transform((text) => text.trim()),
  description: optionalText('description', 140, 'invalid_description').transform((text) => text?.trim() || null),
  prices: z.array(PriceInput, plansError('prices must be a list of prices.')).min(1, plansError('Each plan needs a price.')).max(2, plansError('A plan has at most two prices.')),
  features: z.array(z.string(plansError('Each feature must be text.')).transform((text) => text.trim())
    .refine((text) => characters(text) <= 80, coded('too_long', 'Each feature must be at most 80 characters.')), plansError('features must be a list of text.'))
    .max(MAX_FEATURES, plansError(`A plan lists at most ${MAX_FEATURES} features.`)).default([])
    .transform((features) => features.filter((feature) => feature !== '')),
  recommended: z.boolean(plansError('recommended must be true or false.')).default(false),
}, plansError('Each plan must be an object with a name and prices.'));

export const PlansInput = z.array(PlanInput, plansError('plans must be a list of plans.'))
  .min(1, plansError('A pricing table needs at least one plan.'))
  .max(MAX_PLANS, plansError(`A pricing table has at most ${MAX_PLANS} plans.`))
  .refine((plans) => plans.filter((plan) => plan.recommended).length <= 1, plansError('At most one plan can be recommended.'));

/** The plans and switch of a pricing table, as a dashboard action takes them (validated together). */
export const PricingInput = z.object({ options: OptionsInput.default(null), plans: PlansInput });
export type PricingInput = z.output<typeof PricingInput>;

export interface StoredPlan {
  id: string;
  name: string;
  description: string | null;
  prices: Array<{ amount: string; unit: string }>;
  features: string[];
  recommended: boolean;
}

/**
 * The plans to store and the table's price: each plan has one price per option, checked here
 * because the count depends on the options. Plans are numbered in order (`plan_1`…); a buyer
 * names one by its id and pays the price it has when the form is posted.
 */
export function pricingOf(input: PricingInput): { options: string[] | null; plans: StoredPlan[]; amount: number } {
  const wanted = input.options === null ? 1 : 2;
  input.plans.forEach((plan, index) => {
    if (plan.prices.length !== wanted) {
      throw new ApiError('invalid_plans', wanted === 1
        ? `Plan ${index + 1} needs exactly one price (the table has no options).`
        : `Plan ${index + 1} needs a price for each option: ${input.options!.join(' and ')}.`, `plans.${index}.prices`);
    }
  });
  const plans = input.plans.map((plan, index) => ({
    id: `plan_${index + 1}`, name: plan.name, description: plan.description, features: plan.features, recommended: plan.recommended,
    prices: plan.prices.map((price) => ({ amount: formatAmount(price.amount), unit: price.unit })),
  }));
  const amount = Math.min(...input.plans.flatMap((plan) => plan.prices.map((price) => price.amount)));
  return { options: input.options, plans, amount };
}

export const parsePricing = (input: unknown) => pricingOf(parseOrThrow(PricingInput, input));

/** What a buyer chose on a pricing table: the plan's price and the label its payment carries (`planLabel`). */
export interface ChosenPlan {
  amount_minor: number;
  label: string;
  name: string;
}

/** The buyer's plan and option on the checkout, or `invalid_plan` beside the plan field. */
export function choosePlan(checkout: Pick<CheckoutRow, 'plans' | 'options' | 'currency'>, planId: unknown, option: unknown): ChosenPlan {
  const plans = checkout.plans as StoredPlan[];
  const plan = plans.find((candidate) => candidate.id === planId);
  // The plan's id is whatever the browser posted: only one of this table's plans is ever charged.
  if (!plan) throw new ApiError('invalid_plan', 'That plan is not offered here. Choose one of the plans shown.', 'plan');
  const index = checkout.options && option === '1' ? 1 : 0;
  const price = plan.prices[index] ?? plan.prices[0]!;
  const optionLabel = checkout.options?.[index];
  return {
    amount_minor: parseAmount(price.amount) ?? 0,
    name: plan.name,
    label: `${plan.name}${optionLabel ? `, ${optionLabel}` : ''}: ${price.amount} ${checkout.currency} / ${price.unit}`,
  };
}
