import type { ComponentChildren, VNode } from 'preact';
import { formatAmount } from '../../core/money.ts';
import { html, Layout } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { PAYER_SCRIPT_PATH } from '../assets.ts';
import { brandStylesheetPath, logoPath, type Brand } from '../../resources/brand/queries.ts';

// What every payer page shares: the merchant's name (and logo) as the brand, the Test-mode banner,
// the buyer's language, the page's own script (it works without it), and money as people read it.

export interface PayerFrame {
  t: Messages;
  /** The merchant's name, whose page this is. */
  business: string;
  /** The merchant's logo, a same-origin path (/assets/logos/…); none when unset. */
  logoPath?: string | null | undefined;
  livemode: boolean;
  theme?: 'light' | 'dark' | undefined;
  /** The stylesheet of the merchant's brand colour, when it has one (brandFrame). */
  brandStylesheet?: string | null;
}

/** The frame's brand fields for a business's brand (its logo and colour, each at its own cached address). */
export function brandFrame(businessId: string, brand: Brand): Pick<PayerFrame, 'logoPath' | 'brandStylesheet'> {
  return {
    logoPath: brand.logo === null ? null : logoPath(businessId, brand.logo),
    brandStylesheet: brand.color === null ? null : brandStylesheetPath(businessId, brand.color),
  };
}

/** The merchant's logo (decorative: the name beside it says whose page this is) and name. */
function BusinessMark({ business, logoPath }: Pick<PayerFrame, 'business' | 'logoPath'>): VNode {
  return html`<p class="business-mark">${logoPath && html`<img src=${logoPath} alt="" width="48" height="48" />`}<span>${business}</span></p>`;
}

/**
 * The frame of a payer page. With `summary` (what is paid), two columns as a checkout reads: the
 * summary beside the steps on a wide screen, above them on a phone; without, one centred card.
 */
export function PayerPage({ t, business, logoPath, brandStylesheet, livemode, theme, title, summary, children }: PayerFrame & { title: string; summary?: ComponentChildren; children: ComponentChildren }): VNode {
  const mark = BusinessMark({ business, logoPath });
  return Layout({
    title,
    brand: business,
    stylesheets: brandStylesheet ? [brandStylesheet] : [],
    lang: t.lang,
    theme,
    testModeBanner: livemode ? undefined : t.testBanner,
    scripts: [PAYER_SCRIPT_PATH],
    skipLabel: t.skip,
    children: summary == null
      ? html`<div class="pay-single">${mark}<div class="pay-card">${children}</div></div>`
      : html`<div class="pay-layout">
          <div class="pay-summary">${mark}${summary}</div>
          <div class="pay-steps">${children}</div>
        </div>`,
  });
}

// Intl formatters are costly to make and the languages and currencies are few: one of each, kept.
const prices = new Map<string, Intl.NumberFormat>();
const moments = new Map<string, Intl.DateTimeFormat>();
function formatter<F>(kept: Map<string, F>, key: string, make: () => F): F {
  let found = kept.get(key);
  if (found === undefined) {
    found = make();
    kept.set(key, found);
  }
  return found;
}

/** A price as the buyer's language writes it ("$25.00", "25,00 €"), from minor units, exactly. */
export function price(t: Messages, minor: number, currency: string): string {
  // format() takes the decimal string as written (Intl.NumberFormat v3): no float in between.
  return formatter(prices, `${t.lang} ${currency}`, () => new Intl.NumberFormat(t.lang, { style: 'currency', currency })).format(formatAmount(minor) as unknown as number);
}

/** A moment as the buyer's language writes it, in UTC (the page cannot know the buyer's zone without script). */
export function moment(t: Messages, at: Date): VNode {
  const text = formatter(moments, t.lang, () => new Intl.DateTimeFormat(t.lang, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' })).format(at);
  return html`<time datetime=${at.toISOString()}>${text}</time>`;
}

export interface OrderLines {
  items: Array<{ name: string; variant: string | null; quantity: number; amount_minor: number }>;
  subtotalMinor: number;
  discountMinor: number;
  shippingMinor: number;
  taxMinor: number;
  totalMinor: number;
}

/** An order of this many lines or more is folded to one line on a phone ("4 items · $53.70"). */
const FOLDED_FROM_LINES = 3;

/**
 * The order's lines and totals, when there is more to show than one line for the whole amount.
 * A long order is a <details> (the script opens it on a wide screen, where there is room).
 */
export function OrderSummary({ t, order, currency }: { t: Messages; order: OrderLines; currency: string }): VNode | null {
  const plain = order.items.length === 1 && order.items[0]?.quantity === 1 && order.totalMinor === order.subtotalMinor;
  if (plain) return null;
  const totals: Array<[string, number]> = [[t.subtotal, order.subtotalMinor]];
  if (order.discountMinor) totals.push([t.discount, -order.discountMinor]);
  if (order.shippingMinor) totals.push([t.shipping, order.shippingMinor]);
  if (order.taxMinor) totals.push([t.tax, order.taxMinor]);
  totals.push([t.total, order.totalMinor]);
  const lines = html`<div class="order-lines">
    <ul class="items">${order.items.map((item) => html`<li>
      <span class="item-name">${item.name}${item.variant && html`<span class="muted">${item.variant}</span>`}</span>
      <span class="item-quantity muted">${t.timesQuantity(item.quantity)}</span>
      <span class="item-price">${price(t, item.amount_minor, currency)}</span>
    </li>`)}</ul>
    <dl class="totals">${totals.map(([label, minor]) => html`<div><dt>${label}</dt><dd>${price(t, minor, currency)}</dd></div>`)}</dl>
  </div>`;
  const count = order.items.reduce((sum, item) => sum + item.quantity, 0);
  return html`<section aria-labelledby="items-heading" class="order">
    <h2 id="items-heading" class=${order.items.length >= FOLDED_FROM_LINES ? 'visually-hidden' : undefined}>${t.items}</h2>
    ${order.items.length >= FOLDED_FROM_LINES
      ? html`<details class="order-fold" data-open-wide><summary>${t.itemsFolded(count, price(t, order.totalMinor, currency))}</summary>${lines}</details>`
      : lines}
  </section>`;
}
