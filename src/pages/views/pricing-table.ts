import type { VNode } from 'preact';
import type { StoredPlan } from '../../resources/checkouts/plans.ts';
import type { CheckoutView } from '../../resources/payer/checkout.ts';
import { parseAmount } from '../../core/money.ts';
import { Button, Form, html, Notice, RadioGroup } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { CheckoutSummary } from './checkout.ts';
import { DetailsFields, type FieldErrors, type FormValues } from './details.ts';
import { PayerPage, price, brandFrame } from './frame.ts';

/**
 * A pricing table's hosted page (spec 2.2 `plans`, `options`): its plans side by side, the
 * recommended one marked, the two-way switch as two links (`?option=0|1`, so it works without
 * script), and one form: the plan as radio buttons (the recommended, else the first, chosen),
 * the chosen option carried along, and the buyer's details. Every value shown comes from the
 * view and `option`, which together name the kept page.
 */
export function pricingTablePage({ t, view, action, option, values, errors }: { t: Messages; view: CheckoutView; action: string; option: 0 | 1; values: FormValues; errors: FieldErrors }): VNode {
  const { checkout, business } = view;
  const plans = checkout.plans as StoredPlan[];
  const priceOf = (plan: StoredPlan) => {
    const chosen = plan.prices[option] ?? plan.prices[0]!;
    return t.pricePer(price(t, parseAmount(chosen.amount) ?? 0, checkout.currency), chosen.unit);
  };
  const chosenPlan = values.plan ?? (plans.find((plan) => plan.recommended) ?? plans[0])?.id;
  return PayerPage({
    t, business: business.name, livemode: checkout.livemode, theme: checkout.theme, ...brandFrame(business.id, view.brand),
    title: checkout.name,
    children: html`<div>
      ${CheckoutSummary({ t, view })}
      ${checkout.options && html`<nav aria-label=${t.billing}><p>${checkout.options.map((label, index) => html`${index > 0 && ' · '}${index === option
        ? html`<strong><a href=${`${action}?option=${index}`} aria-current="page">${label}</a></strong>`
        : html`<a href=${`${action}?option=${index}`}>${label}</a>`}`)}</p></nav>`}
      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading">${t.plansHeading}</h2>
        <div class="plans">${plans.map((plan) => html`<article class=${plan.recommended ? 'plan recommended' : 'plan'} aria-labelledby=${`plan-${plan.id}`}>
          <h3 id=${`plan-${plan.id}`}>${plan.name}${plan.recommended && html` <strong class="badge">(${t.recommendedPlan})</strong>`}</h3>
          <p class="amount-due"><strong>${priceOf(plan)}</strong></p>
          ${plan.description && html`<p>${plan.description}</p>`}
          ${plan.features.length > 0 && html`<ul>${plan.features.map((feature) => html`<li>${feature}</li>`)}</ul>`}
        </article>`)}</div>
      </section>
      <section aria-labelledby="details-heading">
        <h2 id="details-heading">${t.yourDetails}</h2>
        ${Object.keys(errors).length > 0 && Notice({ tone: 'error', children: t.fixErrors })}
        ${Form({ action, label: t.yourDetails, children: [
          html`<input type="hidden" name="option" value=${String(option)} />`,
          RadioGroup({ name: 'plan', legend: t.yourPlan, value: chosenPlan, error: errors.plan, required: true,
            choices: plans.map((plan) => ({ value: plan.id, label: `${plan.name}: ${priceOf(plan)}${plan.recommended ? ` (${t.recommendedPlan})` : ''}` })) }),
          DetailsFields({ t, collect: checkout.collect, values, errors }),
          Button({ variant: 'primary', children: checkout.button_label ?? t.payForPlan }),
        ] })}
      </section>
    </div>`,
  });
}
