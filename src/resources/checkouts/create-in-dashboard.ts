import { defineAction } from '../../verbs/action.ts';
import { insertCheckout } from './create.ts';
import { OptionsInput, PlansInput, pricingOf } from './plans.ts';
import { CreateCheckoutInput, type CheckoutOut } from './schemas.ts';

// The kinds only the dashboard creates (spec 2.2: "the API creates only page"): a pricing table
// (plans, and optionally a two-way switch) and a widget. A widget is what the spec says and no
// more: a checkout with one price whose slug a buy button takes (spec 4.2); buyers reach the same
// hosted page (/c/<slug>) as a checkout page's.

export const CreatePricingTableInput = CreateCheckoutInput.omit({ kind: true, amount: true }).extend({ options: OptionsInput.default(null), plans: PlansInput });

export const createPricingTable = defineAction({
  name: 'create_pricing_table',
  title: 'Create a pricing table (its price is the lowest plan price)',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: CreatePricingTableInput,
  async run(ctx, input): Promise<CheckoutOut> {
    const { options, plans, amount } = pricingOf(input);
    return insertCheckout(ctx, { ...input, kind: 'pricing_table', amount, options, plans });
  },
});

export const CreateWidgetInput = CreateCheckoutInput.omit({ kind: true });

export const createWidget = defineAction({
  name: 'create_widget',
  title: 'Create a widget (a buy button\'s checkout)',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: CreateWidgetInput,
  async run(ctx, input): Promise<CheckoutOut> {
    return insertCheckout(ctx, { ...input, kind: 'widget' });
  },
});
