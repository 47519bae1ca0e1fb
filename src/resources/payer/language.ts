import { scoped, type Tenant } from '../../db/owned.ts';
import type { AppContext } from '../../verbs/context.ts';

/**
 * Keeps the payer page's language (its catalogue's code: 'en', 'de') on a payment the buyer
 * just started there, for their receipt and notices (pages/mails). Written after the start and
 * before any money can arrive; a later start from a page in another language replaces it.
 */
export async function keepPayerLanguage(app: Pick<AppContext, 'db'>, tenant: Tenant, paymentId: string, language: string): Promise<void> {
  await scoped(app.db.updateTable('payments'), 'payments', tenant, paymentId).set({ payer_language: language })
    .where('payer_language', 'is distinct from', language).execute();
}
