import type { VNode } from 'preact';
import type { BusinessHome, PaidTotals } from '../../resources/businesses/home.ts';
import type { GoLiveChecklist } from '../../resources/businesses/go-live.ts';
import { html, Money, Notice, Time } from '../../ui/index.ts';
import { businessPath, DASHBOARD, objectPath } from '../paths.ts';
import { DashboardPage, MODE_NAMES, type BusinessFrame } from './frame.ts';
import { GoLiveChecklistSection, liveTakesPayments } from './go-live.ts';
import { WAITING_TO_BE_FORWARDED } from '../wording.ts';

// A business's home in one mode: what was paid today and this week, what needs the merchant
// (payments waiting to be forwarded, held payments, failing webhook endpoints) and, in Live, what is left before going live.

/** "1 payment", "2 payments": the word (or a verb) agreeing with `n`. */
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);
const count = (n: number, one: string, many: string) => `${n} ${plural(n, one, many)}`;

const dayNames = new Map<string, Intl.DateTimeFormat>();

/** "Monday 28 September", the day a moment falls on in `timeZone` (one the runtime knows: the home's). */
function dayName(at: Date, timeZone: string): string {
  let format = dayNames.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone });
    if (dayNames.size >= 1_000) dayNames.clear();
    dayNames.set(timeZone, format);
  }
  return format.format(at);
}

function PaidCard({ title, totals, which, empty }: { title: string; totals: PaidTotals[]; which: 'today' | 'week'; empty: VNode | string }): VNode {
  const shown = totals.filter((each) => (which === 'today' ? each.todayCount : each.weekCount) > 0);
  const payments = shown.reduce((sum, each) => sum + (which === 'today' ? each.todayCount : each.weekCount), 0);
  return html`<div class="home-card">
    <h3>${title}</h3>
    ${shown.length === 0 ? html`<p class="muted">${empty}</p>` : html`<div>
      <p class="home-figure">${count(payments, 'payment paid', 'payments paid')}</p>
      <dl class="home-amounts">
        ${shown.map((each) => html`<div>
          <dt>${Money({ amount: which === 'today' ? each.today : each.week, currency: each.currency })}</dt>
          <dd>${count(which === 'today' ? each.todayCount : each.weekCount, 'payment', 'payments')}</dd>
        </div>`)}
      </dl>
    </div>`}
  </div>`;
}

export function businessHomePage({ session, business, mode, role, home, checklist }: BusinessFrame & {
  home: BusinessHome;
  /** Live only: what Live needs before buyers can pay. */
  checklist?: GoLiveChecklist;
}): VNode {
  const path = (area: Parameters<typeof businessPath>[1]) => businessPath(business.id, area, mode);
  const share = html`<span>No payments yet today. <a href=${path('payment_links')}>Share a payment link</a> to take one.</span>`;
  return DashboardPage({
    title: `Home · ${MODE_NAMES[mode]}`,
    session,
    frame: { business, mode, role },
    area: 'home',
    children: html`<div>
      <h1>Home</h1>
      ${checklist && !liveTakesPayments(checklist) && Notice({ tone: 'warning', children: html`<span>Live buyers cannot pay yet. <a href="#go-live-heading">See what is left to do</a> in the go-live checklist below.</span>` })}
      <section aria-labelledby="paid-heading">
        <h2 id="paid-heading">${MODE_NAMES[mode]} payments</h2>
        <p class="muted">Counted by when they were paid, in your time zone, ${home.zone} (<a href=${`${DASHBOARD}#zone-heading`}>change it</a>); the week began on ${dayName(home.since.week, home.zone)}.</p>
        <div class="home-cards">
          ${PaidCard({ title: 'Today', totals: home.paid, which: 'today', empty: share })}
          ${PaidCard({ title: 'This week', totals: home.paid, which: 'week', empty: 'No payments yet this week.' })}
        </div>
        <p><a href=${path('payments')}>All ${MODE_NAMES[mode]} payments</a></p>
      </section>
      ${home.waitingCount > 0 && html`<section aria-labelledby="waiting-heading">
        <h2 id="waiting-heading">Payments waiting to be forwarded</h2>
        <p><strong>${count(home.waitingCount, 'payment has', 'payments have')} not reached your payout wallet in time.</strong> ${WAITING_TO_BE_FORWARDED}; the money is safe at each payment's deposit address until it is forwarded.</p>
        <ul class="home-list">
          ${home.waiting.map((payment) => html`<li>
            <a href=${objectPath(business.id, 'payments', mode, payment.id)}>${payment.description}</a>
            ${' '}${Money({ amount: payment.amount, currency: payment.currency })}<span class="muted">, waiting since ${Time({ at: payment.since })}</span>
          </li>`)}
        </ul>
        ${home.waitingCount > home.waiting.length && html`<p class="muted">The ${home.waiting.length} waiting longest are listed.</p>`}
      </section>`}
      <section aria-labelledby="held-heading">
        <h2 id="held-heading">Held payments to review</h2>
        ${home.heldCount === 0 ? html`<p>Nothing to review: no held payment needs you.</p>` : html`<div>
          <p><strong>${count(home.heldCount, 'payment is', 'payments are')} held</strong> and ${plural(home.heldCount, 'needs', 'need')} you: open one to see why and what arrived, and accept it if it is right.</p>
          <ul class="home-list">
            ${home.held.map((payment) => html`<li>
              <a href=${objectPath(business.id, 'payments', mode, payment.id)}>${payment.description}</a>
              ${' '}${Money({ amount: payment.amount, currency: payment.currency })}<span class="muted">, ${Time({ at: payment.created })}</span>
            </li>`)}
          </ul>
          ${home.heldCount > home.held.length && html`<p><a href=${`${path('payments')}?status=held`}>All ${home.heldCount} held payments</a></p>`}
        </div>`}
      </section>
      <section aria-labelledby="failing-heading">
        <h2 id="failing-heading">Webhook endpoints failing</h2>
        ${home.failing.length === 0 ? html`<p>None: no endpoint's latest delivery failed. <a href=${path('webhooks')}>Webhooks</a></p>` : html`<div>
          <p><strong>${count(home.failing.length, 'endpoint is', 'endpoints are')} failing</strong>: your systems are not hearing of these payment events. Open one for its delivery log.</p>
          <ul class="home-list">
            ${home.failing.map((endpoint) => html`<li>
              <a href=${objectPath(business.id, 'webhooks', mode, endpoint.id)}>${endpoint.url}</a>
              <span class="muted">: ${endpoint.lastStatus === null ? 'no answer' : `answered ${endpoint.lastStatus}`}${endpoint.lastAttempt && html`${' '}at ${Time({ at: endpoint.lastAttempt })}`}; ${endpoint.gaveUp ? 'given up' : 'being retried'}.</span>
            </li>`)}
          </ul>
        </div>`}
      </section>
      ${checklist && GoLiveChecklistSection({ checklist, businessId: business.id })}
    </div>`,
  });
}
