import type { VNode } from 'preact';
import { DEFAULT_POLICY } from '../../agents/policy.ts';
import { formField, type Form } from '../../core/form.ts';
import { CURRENCIES, formatAmount } from '../../core/money.ts';
import { CheckboxGroup, html, TextField } from '../../ui/index.ts';

// A connected agent's spend policy as a person sets it: on the sign-in approval page (the
// defaults shown) and on the agent's own page. One row per currency: allowed or not, the most per
// payment link, checkout or checkout session, and the most created a day; and whether each Live
// create or change waits for a person.

export interface PolicyValues {
  live_needs_approval: boolean;
  limits: Array<{ currency: string; per_object: string; per_day: string }>;
}

export const DEFAULT_POLICY_VALUES: PolicyValues = {
  live_needs_approval: DEFAULT_POLICY.liveNeedsApproval,
  limits: DEFAULT_POLICY.limits.map((limit) => ({ currency: limit.currency, per_object: formatAmount(limit.perObjectMinor), per_day: formatAmount(limit.perDayMinor) })),
};

/** Whether a posted form carries the policy fields at all (a form without them means the defaults). */
export function postsPolicy(form: Form): boolean {
  return CURRENCIES.some((currency) => formField(form, `per_object_${currency}`) !== undefined);
}

/** The policy fields of a posted form, in the actions' input shape (validated there). */
export function policyOfForm(form: Form): PolicyValues {
  return {
    live_needs_approval: formField(form, 'live_needs_approval') === 'on',
    limits: CURRENCIES.filter((currency) => formField(form, `allow_${currency}`) === 'on').map((currency) => ({
      currency,
      per_object: formField(form, `per_object_${currency}`) ?? '',
      per_day: formField(form, `per_day_${currency}`) ?? '',
    })),
  };
}

/** The fields, filled with `values` (a currency left out is unticked, with the default amounts to start from). */
export function PolicyFields({ values, error }: { values: PolicyValues; error?: string | undefined }): VNode {
  const rows = CURRENCIES.map((currency) => {
    const limit = values.limits.find((each) => each.currency === currency);
    const fallback = DEFAULT_POLICY_VALUES.limits.find((each) => each.currency === currency)!;
    return html`<fieldset class="policy-currency">
      <legend>${currency}</legend>
      <div class="choice">
        <input type="checkbox" id=${`allow-${currency}`} name=${`allow_${currency}`} checked=${limit !== undefined} />
        <label for=${`allow-${currency}`}>Allow ${currency}</label>
      </div>
      ${TextField({ name: `per_object_${currency}`, label: `Most per payment (${currency})`, value: limit?.per_object ?? fallback.per_object, maxLength: 20 })}
      ${TextField({ name: `per_day_${currency}`, label: `Most created a day (${currency})`, value: limit?.per_day ?? fallback.per_day, maxLength: 20 })}
    </fieldset>`;
  });
  return html`<fieldset class="agent-policy">
    <legend>What the agent may do with money</legend>
    <p class="hint">Limits count the amounts of the payment links, checkouts and checkout sessions it creates; the day is the UTC day. Beyond them, or in a currency not allowed, its call waits for your approval.</p>
    ${error && html`<p class="error-message" role="alert">Error: ${error}</p>`}
    ${CheckboxGroup({ id: 'live-approval', legend: 'Live mode', boxes: [{ name: 'live_needs_approval', label: 'Each Live create or change waits for a person\'s approval', checked: values.live_needs_approval }] })}
    <div class="policy-currencies">${rows}</div>
  </fieldset>`;
}
