import type { VNode } from 'preact';
import { ApiError, type ErrorCode } from '../core/errors.ts';
import { CURRENCIES } from '../core/money.ts';
import { html, Notice } from '../ui/index.ts';
import { businessPath } from './paths.ts';
import type { Mode, PersonContext } from './requests.ts';

// A refused dashboard form in a person's words. The API's messages are written for developers
// (`amount must be a decimal string…`, field names, JSON types); here each code a form can meet
// becomes a sentence saying how to fix it, with a link where the fix is on another page, and the
// form is shown again as typed. What a form cannot fix (a role, a missing object) is the error page.

/** Where a fix is made, when it is not in the form itself. */
export interface RefusalFix {
  href: string;
  label: string;
}

/** A refused form: the field to mark (none: said above the form), the sentence, and where to fix it. */
export interface FormRefusal {
  field: string | undefined;
  message: string;
  fix?: RefusalFix;
  status: number;
}

const MAX_CHARACTERS = /at most ([\d,]+) characters/;
const AMOUNT_RANGE = /from ([\d.]+) to ([\d.]+)/;

/** Sentences by code, where the API's one names fields or types; the code's message is used as is otherwise. */
const WORDS: Partial<Record<ErrorCode, (error: ApiError) => string>> = {
  invalid_amount: (error) => {
    const range = AMOUNT_RANGE.exec(error.message);
    return range ? `Enter an amount like 25.00: from ${range[1]} to ${range[2]}, with at most two decimals.` : 'Enter an amount like 25.00, with at most two decimals.';
  },
  invalid_currency: () => `Enter a currency as its three letters: ${CURRENCIES.slice(0, -1).join(', ')} or ${CURRENCIES.at(-1)}.`,
  invalid_email: (error) => (error.message.endsWith('too long.') ? 'This email address is too long.' : 'Enter an email address like name@example.com.'),
  invalid_expiry: () => 'Enter a whole number of days from 1 to 30, or leave it empty for 7.',
  too_long: (error) => {
    const most = MAX_CHARACTERS.exec(error.message)?.[1];
    return most ? `Too long: at most ${most} characters.` : error.message;
  },
  invalid_url: (error) => {
    if (error.message.includes('username')) return 'Leave the username and password out of the address.';
    if (!error.message.includes('must be a full')) return error.message;
    // A webhook endpoint's address (its field is url) or a page the buyer goes on to.
    const like = error.field === 'url' ? 'https://example.com/webhooks' : 'https://example.com/thanks';
    if (error.message.includes('http://localhost')) return `Enter a full address starting with https://, like ${like} (http:// only for this machine, localhost, in Test mode).`;
    return error.message.includes('http://') ? `Enter a full address starting with https:// or http://, like ${like}.` : `Enter a full address starting with https://, like ${like}.`;
  },
  missing_description: () => 'Say what it is for: the payer reads this.',
  missing_name: () => 'Enter a name.',
  no_payout_wallet: () => 'Nothing was created: Live payments need a payout wallet first, the address your money goes to.',
  commerce_paused: () => 'Nothing was created: this account has paused taking payments.',
};

/** Codes whose fix is on the Settings page, at its section. */
const FIXES: Partial<Record<ErrorCode, { section: string; label: string }>> = {
  no_payout_wallet: { section: 'wallet-heading', label: 'Set a payout wallet in Settings' },
  commerce_paused: { section: 'payments-heading', label: 'Resume taking payments in Settings' },
};

/** The error's message for a person: the code's sentence above, else the API's own (already in plain words). */
export function inPersonsWords(error: ApiError): string {
  return WORDS[error.code]?.(error) ?? error.message;
}

/**
 * A refusal a form shows with what was typed (a value refused, 400; a state the person can change,
 * 409); anything else is thrown on, to the error page.
 */
export function formRefusal(error: unknown, ctx: PersonContext): FormRefusal {
  if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 409)) throw error;
  return refusalIn(error, ctx.principal.businessId, ctx.mode);
}

/** The refusal of `error` on a form of the business `businessId` in `mode` (where its fix links to). */
export function refusalIn(error: ApiError, businessId: string, mode: Mode): FormRefusal {
  const fix = FIXES[error.code];
  return {
    field: error.field,
    message: inPersonsWords(error),
    status: error.status,
    ...(fix ? { fix: { href: `${businessPath(businessId, 'settings', mode)}#${fix.section}`, label: fix.label } } : {}),
  };
}

/** The refusal above a form: its sentence (or `placed`, when a field below is marked) and the link to its fix. */
export function RefusalNotice({ refusal, placed }: { refusal: Omit<FormRefusal, 'status'>; placed?: string }): VNode {
  return Notice({ tone: 'error', children: [
    placed ?? refusal.message,
    refusal.fix && html`<span> <a href=${refusal.fix.href}>${refusal.fix.label}</a>, then send this form again.</span>`,
  ] });
}
