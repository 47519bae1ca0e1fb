import { CURRENCIES } from '../core/money.ts';
import { eraseCustomer } from '../resources/customers/erase.ts';
import { listFxRates, setFxRate } from '../resources/fx-rates/rates.ts';
import { acceptHeldPayment } from '../resources/payments/accept.ts';
import { asOperatorOn, oneOf, positional, required, UsageError, type Command } from './command.ts';

// Operator actions on money and customers (the dashboard offers them to people too).
export const moneyCommands: Record<string, Command> = {
  'payments accept': {
    usage: 'payments accept PAYMENT_ID [--json]',
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
  'customers erase': {
    usage: 'customers erase CUSTOMER_ID [--json]   (irreversible)',
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
    usage: 'rates set --currency EUR --usd 1.08 [--json]   (USD per unit, used to lock a payment\'s USD value at start)',
    options: { currency: { type: 'string' }, usd: { type: 'string' } },
    async run(context, flags) {
      const currency = oneOf(required(flags, 'currency').toUpperCase(), CURRENCIES, 'currency') ?? 'USD';
      const usd = required(flags, 'usd');
      if (!/^\d{1,6}(\.\d{1,8})?$/.test(usd) || Number(usd) <= 0) throw new UsageError('--usd must be a positive decimal with at most 8 decimals.');
      const rate = await setFxRate(context, currency, usd);
      return { json: { currency: rate.currency, usd_per_unit: rate.usd_per_unit }, text: `1 ${currency} = ${usd} USD from now on.` };
    },
  },
  'rates list': {
    usage: 'rates list [--json]',
    options: {},
    async run(context) {
      const data = await listFxRates(context.db);
      return { json: { data }, text: data.map((rate) => `${rate.currency}  ${rate.usd_per_unit}`).join('\n') };
    },
  },
};
