import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { exportBooks } from '../resources/ledger/export.ts';
import { asOperator, required, type Command } from './command.ts';

// The books for an accountant (issue 30): a business's on-chain money as CSV, written to a file as
// it is read, so a year of arrivals costs no more memory than a day's.
export const booksCommands: Record<string, Command> = {
  'books export': {
    usage: 'books export --business BUSINESS_ID --from YYYY-MM-DD --to YYYY-MM-DD --out FILE [--test] [--json]   (Live unless --test; both days included, UTC)',
    description: 'the books of on-chain money as CSV for an accountant (Live unless `--test`; both days included, UTC; at most 366 days): one line per arrival with what forwarded it, and one per sweep (see The books in docs/run-it.md); written as read → `{ "business", "livemode", "from", "to", "file", "lines" }`',
    options: { business: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, out: { type: 'string' }, test: { type: 'boolean' } },
    async run(context, flags) {
      const businessId = required(flags, 'business');
      const out = required(flags, 'out');
      const ctx = await asOperator(context, businessId, flags.test !== true);
      const csv = await exportBooks.run(ctx, { from: required(flags, 'from'), to: required(flags, 'to') });
      const file = createWriteStream(out);
      let lines = -1; // the header is not one
      for await (const chunk of csv) {
        lines += chunk.split('\r\n').length - 1;
        if (!file.write(chunk)) await once(file, 'drain');
      }
      file.end();
      await finished(file);
      return {
        json: { business: businessId, livemode: flags.test !== true, from: flags.from, to: flags.to, file: out, lines },
        text: `Wrote ${lines} ${lines === 1 ? 'line' : 'lines'} (arrivals and sweeps) of ${businessId} (${flags.test === true ? 'Test' : 'Live'}) from ${flags.from} to ${flags.to} to ${out}.`,
      };
    },
  },
};
