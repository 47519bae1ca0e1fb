import type { VNode } from 'preact';
import type { StoredPlan } from '../../resources/checkouts/plans.ts';
import type { CheckoutView } from '../../resources/payer/checkout.ts';
import { parseAmount } from '../../core/money.ts';
import { Button, Form, html, Notice } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { CheckoutSummary } from './checkout.ts';
import { DetailsFields, type FieldErrors, type FormValues } from './details.ts';
import { PayerPage, price, brandFrame } from './frame.ts';

/**
 * A pricing table's hosted page (spec 2.2 `plans`, `options`): one form holding the switch, the
 * plans and the buyer's details. Each plan card's button is the label of that plan's radio, and
 * the switch's two sides are radios too, so what the form posts is what the page shows chosen,
 * with script or without (css/pricing.css marks the chosen card and shows the chosen side's
 * prices). A price is one payment, said so. `option` is the side shown first (`?option=1`).
 */
export function pricingTablePage({ t, view, action, option, values, errors }: { t: Messages; view: CheckoutView; action: string; option: 0 | 1; values: FormValues; errors: FieldErrors }): VNode {
  const { checkout, business } = view;
  const plans = checkout.plans as StoredPlan[];
  const sides = checkout.options ? [0, 1] : [0];
  const priceOf = (plan: StoredPlan, side: number) => {
    const chosen = plan.prices[side] ?? plan.prices[0]!;
    return t.pricePer(price(t, parseAmount(chosen.amount) ?? 0, checkout.currency), chosen.unit);
  };
  // Only one of this table's plans is ever shown chosen: a posted id that is none of them (refused
  // when bought) leaves the recommended plan, else the first, chosen.
  const chosenPlan = (plans.find((plan) => plan.id === values.plan) ?? plans.find((plan) => plan.recommended) ?? plans[0])?.id;
  // Each price once per side; the stylesheet shows the chosen side's (both, in a browser without :has).
  const prices = (plan: StoredPlan, className: string, lead?: VNode) => sides.map((side) => html`<p class=${className} data-option=${String(side)}>${lead}${priceOf(plan, side)}</p>`);
  const planError = errors.plan;
  return PayerPage({
    t, business: business.name, livemode: checkout.livemode, theme: checkout.theme, ...brandFrame(business.id, view.brand),
    title: checkout.name,
    children: html`<div class="pricing">
      ${CheckoutSummary({ t, view })}
      ${Object.keys(errors).length > 0 && Notice({ tone: 'error', children: t.fixErrors })}
      ${Form({ action, label: checkout.name, children: [
        checkout.options && html`<fieldset class="plan-switch" id="field-option">
          <legend>${t.billing}</legend>
          ${checkout.options.map((label, index) => html`<span class="switch-side">
            <input type="radio" class="switch-radio" id=${`field-option-${index}`} name="option" value=${String(index)} checked=${index === option} />
            <label for=${`field-option-${index}`}>${label}</label>
          </span>`)}
        </fieldset>`,
        html`<fieldset class="plan-choice" id="field-plan" aria-describedby=${planError ? 'field-plan-error' : undefined}>
          <legend><h2 id="plans-heading">${t.plansHeading}</h2></legend>
          ${planError && html`<p class="error-message" id="field-plan-error">${planError}</p>`}
          <div class="plans">${plans.map((plan) => html`<div class=${plan.recommended ? 'plan recommended' : 'plan'}>
            <input type="radio" class="plan-radio" id=${`plan-${plan.id}`} name="plan" value=${plan.id} checked=${plan.id === chosenPlan} required
              aria-labelledby=${`plan-${plan.id}-name`} aria-describedby=${`plan-${plan.id}-price`} />
            <h3 id=${`plan-${plan.id}-name`}>${plan.name}${plan.recommended && html` <strong class="badge">(${t.recommendedPlan})</strong>`}</h3>
            <div id=${`plan-${plan.id}-price`}>${prices(plan, 'plan-price')}</div>
            ${plan.description && html`<p>${plan.description}</p>`}
            ${plan.features.length > 0 && html`<ul>${plan.features.map((feature) => html`<li>${feature}</li>`)}</ul>`}
            <label for=${`plan-${plan.id}`} class="button plan-choose">
              <span class="plan-unchosen">${t.choosePlanOf(plan.name)}</span><span class="plan-chosen">${t.planChosen}</span>
            </label>
          </div>`)}</div>
        </fieldset>`,
        html`<h2 id="details-heading">${t.yourDetails}</h2>`,
        DetailsFields({ t, collect: checkout.collect, values, errors }),
        // What the button charges, beside it: the chosen plan at the chosen side's price (shown by the stylesheet).
        html`<div class="plan-totals">${plans.map((plan) => html`<div class="plan-total" data-plan=${plan.id}>
          ${prices(plan, 'plan-price', html`<strong>${t.yourPlan}:</strong> ${plan.name}, `)}
        </div>`)}</div>`,
        Button({ variant: 'primary', children: checkout.button_label ?? t.payForPlan }),
      ] })}
    </div>`,
  });
}
