import { eraseCustomer } from '../resources/customers/erase.ts';
import { ApiError } from '../core/errors.ts';
import { PRICED_CURRENCIES } from '../resources/fx-rates/derive.ts';
import { clearFxRate, lastFetch, listFxRates, setFxRate } from '../resources/fx-rates/rates.ts';
import { refreshFxRates } from '../resources/fx-rates/refresh.ts';
import { shownAddress } from '../resources/fx-rates/fetch-feed.ts';
import { acceptHeldPayment } from '../resources/payments/accept.ts';
import { askForRemainder } from '../resources/payments/remainder.ts';
import { asOperatorOn, oneOf, positional, required, UsageError, type Command, type Flags } from './command.ts';

/** The currency a rate command is about: one priced through a rate (USD is always 1). */
const pricedCurrency = (flags: Flags) => oneOf(required(flags, 'currency').toUpperCase(), PRICED_CURRENCIES, 'currency') ?? 'EUR';

// Operator actions on money and customers (the dashboard offers them to people too).
export const moneyCommands: Record<string, Command> = {
  'payments accept': {
    usage: 'payments accept PAYMENT_ID [--json]',
    description: 'accepts a held payment whose hold is acceptable → `paid`, `payment.paid`',
    options: {},
    async run(context, _flags, positionals) {
      const id = positional(positionals, 'payment', this.usage);
      const payment = await acceptHeldPayment.run(await asOperatorOn(context, 'payment', id), { id });
      return {
        json: { id: payment.id, status: payment.status, amount: payment.amount, currency: payment.currency },
        text: `Accepted ${payment.id} as paid (${payment.amount} ${payment.currency}); payment.paid is on its way.`,
      };
    },
  },
  'payments ask-rest': {
    usage: 'payments ask-rest PAYMENT_ID [--json]   (of a held underpayment: a payment on its order for what is missing; docs/remainders.md)',
    description: 'of a held underpayment, asks the buyer for the rest: a payment on its order for what is missing (the open one when asked before) → `{ "id", "created", "status", "amount", "currency", "url" }`; the order is paid once it is (docs/remainders.md)',
    options: {},
    async run(context, _flags, positionals) {
      const id = positional(positionals, 'payment', this.usage);
      const { remainder, created } = await askForRemainder.run(await asOperatorOn(context, 'payment', id), { id });
      return {
        json: { id: remainder.id, created, status: remainder.status, amount: remainder.amount, currency: remainder.currency, url: remainder.url },
        text: `${created ? 'Asked' : 'Already asked'} for the rest of ${id}: ${remainder.amount} ${remainder.currency}, paid at ${remainder.url}`,
      };
    },
  },
  'customers erase': {
    usage: 'customers erase CUSTOMER_ID [--json]   (irreversible)',
    description: 'deletes a customer\'s details everywhere (irreversible; spec 2.3 rule 7)',
    options: {},
    async run(context, _flags, positionals) {
      const id = positional(positionals, 'customer', this.usage);
      const erased = await eraseCustomer.run(await asOperatorOn(context, 'customer', id), { id });
      return {
        json: erased,
        text: `Erased the details of ${id} from it, ${erased.orders} orders, ${erased.payments} payments and ${erased.events} stored events.`,
      };
    },
  },
  'rates set': {
    usage: 'rates set --currency EUR --usd 1.08 [--json]   (the operator\'s USD per unit: wins over the feed\'s until `rates clear`; ages from now)',
    description: 'the operator\'s rate (USD per unit, EUR, GBP, CAD or AUD): wins over the feed\'s until cleared, and ages from now like any rate, so a Live start refuses it after `FX_RATES_MAX_AGE_HOURS` (set it again, or clear it)',
    options: { currency: { type: 'string' }, usd: { type: 'string' } },
    async run(context, flags) {
      const currency = pricedCurrency(flags);
      const usd = required(flags, 'usd');
      if (!/^\d{1,6}(\.\d{1,8})?$/.test(usd) || Number(usd) <= 0) throw new UsageError('--usd must be a positive decimal with at most 8 decimals.');
      const rate = await setFxRate(context, currency, usd);
      return {
        json: rate,
        text: `1 ${currency} = ${usd} USD from now on, over the feed's rate until \`rates clear --currency ${currency}\`. `
          + `Live starts refuse it once it is older than ${context.config.fxRates.maxAgeHours} hours: set it again before then.`,
      };
    },
  },
  'rates clear': {
    usage: 'rates clear --currency EUR [--json]   (removes the operator\'s rate: the feed\'s applies again)',
    description: 'removes the operator\'s rate: the feed\'s applies again → `{ "currency", "cleared" }`',
    options: { currency: { type: 'string' } },
    async run(context, flags) {
      const currency = pricedCurrency(flags);
      const cleared = await clearFxRate(context.db, currency);
      return { json: { currency, cleared }, text: cleared ? `${currency} takes the feed's rate again.` : `${currency} had no operator's rate; it takes the feed's.` };
    },
  },
  'rates list': {
    usage: 'rates list [--json]   (each currency\'s rate in effect, its source and age, and the feed\'s last fetch)',
    description: 'each price currency\'s rate in effect: USD per unit, its source (`feed`, `operator`, `placeholder`), the time it is of and its age, whether a Live start takes it (`Live: ok` or `Live: REFUSED`), the feed\'s URL and its last fetch (when, and what came of it: the rates stored, or why refused) → `{ "data": [{ "currency", "usd_per_unit", "source", "as_of", "age_hours", "live_usable", "feed", "override" }], "max_age_hours", "feed_url", "last_fetch" }`',
    options: {},
    async run(context) {
      const data = await listFxRates(context);
      const fetch = await lastFetch(context.db);
      const { url, maxAgeHours } = context.config.fxRates;
      const lines = data.map((rate) => [
        rate.currency, rate.usd_per_unit, rate.source,
        rate.as_of === null ? 'of no known time' : `of ${rate.as_of.slice(0, 16).replace('T', ' ')} UTC (${rate.age_hours} h)`,
        rate.live_usable ? 'Live: ok' : `Live: REFUSED (older than ${maxAgeHours} h)`,
      ].join('  '));
      const feed = url === undefined ? null : shownAddress(url);
      lines.push('', `Feed: ${feed ?? 'off (FX_RATES_URL=off): only the operator\'s rates are Live-usable'}`);
      lines.push(fetch ? `Last fetch: ${fetch.fetched_at.toISOString()} ${fetch.ok ? 'read' : 'FAILED'}: ${fetch.outcome}` : 'Last fetch: none yet');
      return {
        json: { data, max_age_hours: maxAgeHours, feed_url: feed, last_fetch: fetch && { ...fetch, fetched_at: fetch.fetched_at.toISOString() } },
        text: lines.join('\n'),
      };
    },
  },
  'rates refresh': {
    usage: 'rates refresh [--json]   (fetches the feed now, as the workers do every hour)',
    description: 'fetches the feed now, as the workers do every hour, and prints what came of it (exit 1 when the feed could not be read)',
    options: {},
    async run(context) {
      const result = await refreshFxRates(context, { log: () => undefined });
      if (!result.ok) throw new ApiError('exchange_rate_unavailable', `The feed was not read: ${result.outcome}`);
      return { json: result, text: result.outcome };
    },
  },
};
