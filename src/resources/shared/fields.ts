import { z } from 'zod';
import { ApiError, type ErrorCode } from '../../core/errors.ts';
import { CURRENCIES, DECIMAL, MAX_AMOUNT_MINOR, MIN_AMOUNT_MINOR, parseAmount, type Currency } from '../../core/money.ts';
import { characters, coded } from '../../core/validation.ts';

// Field schemas shared by the create operations. Each answers with the spec's own error code.

export const amountField = z
  .string(coded('invalid_amount', 'amount must be a decimal string such as "25.00".'))
  .refine((text) => {
    const minor = parseAmount(text);
    return minor !== null && minor >= MIN_AMOUNT_MINOR && minor <= MAX_AMOUNT_MINOR;
  }, coded('invalid_amount', 'amount must be a decimal string from 1.00 to 100000.00 with at most two decimals.'))
  .transform((text) => parseAmount(text) ?? 0)
  .meta({ description: 'Decimal string from "1.00" to "100000.00", at most two decimals.', pattern: DECIMAL.source, examples: ['25.00'] });

export const currencyField = z
  .string(coded('invalid_currency', `currency must be one of ${CURRENCIES.join(', ')}.`))
  .transform((text) => text.toUpperCase())
  .refine((text): text is Currency => (CURRENCIES as readonly string[]).includes(text),
    coded('invalid_currency', `currency must be one of ${CURRENCIES.join(', ')}.`))
  .transform((text) => text as Currency)
  .meta({ description: 'USD, EUR, GBP, CAD or AUD, in any letter case.', examples: ['USD'] });

/** An email address in the parameter `field`; its errors name that parameter. */
export function emailField(field: string) {
  return z
    .string(coded('invalid_email', `${field} must be an email address.`))
    .trim()
    .toLowerCase()
    .pipe(z.email(coded('invalid_email', `${field} must be an email address.`)).max(254, coded('invalid_email', `${field} is too long.`)))
    .meta({ description: 'Email address; stored lowercased.', format: 'email', maxLength: 254 });
}

export function optionalText(field: string, max: number, notString: ErrorCode) {
  return z
    .string(coded(notString, `${field} must be a string.`))
    .refine((text) => characters(text) <= max, coded('too_long', `${field} must be at most ${max} characters.`))
    .nullish()
    .meta({ description: `Up to ${max} characters.`, maxLength: max });
}

export function requiredText(field: string, max: number, missing: ErrorCode) {
  return z
    .string(coded(missing, `${field} is required and must be a non-empty string.`))
    .refine((text) => text.trim() !== '', coded(missing, `${field} must not be empty.`))
    .refine((text) => characters(text) <= max, coded('too_long', `${field} must be at most ${max} characters.`))
    .meta({ description: `Required, up to ${max} characters.`, minLength: 1, maxLength: max });
}

export const MAX_URL_LENGTH = 2048;

function parseHttpUrl(text: string): URL | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' ? url : null;
}

/**
 * A full http(s) address without credentials, kept as sent: what the spec's `invalid_url` asks of
 * any address people may later open (never `javascript:` or `data:`).
 */
export function httpAddressField(field: string) {
  return z
    .string(coded('invalid_url', `${field} must be a full address such as https://example.com/thanks.`))
    .refine((text) => text.length <= MAX_URL_LENGTH, coded('invalid_url', `${field} must be at most ${MAX_URL_LENGTH} characters.`))
    .refine((text) => parseHttpUrl(text) !== null, coded('invalid_url', `${field} must be a full http:// or https:// address.`))
    .refine((text) => {
      const url = parseHttpUrl(text);
      return url !== null && url.username === '' && url.password === '';
    }, coded('invalid_url', `${field} must not contain a username or password.`))
    .meta({ description: 'A full http:// or https:// address without username or password, up to 2,048 characters.', maxLength: MAX_URL_LENGTH });
}

/** A full http(s) address without credentials, normalised (placeholders in the path percent-encoded). */
export function urlField(field: string) {
  return httpAddressField(field)
    .transform((text) => new URL(text).href)
    .meta({ description: 'A full http:// or https:// address without username or password, up to 2,048 characters.', maxLength: MAX_URL_LENGTH });
}

/** Live mode takes only https:// addresses for where payers are sent. */
export function requireHttpsInLive(livemode: boolean, url: string | null | undefined, field: string): void {
  if (livemode && url != null && !url.startsWith('https://')) {
    throw new ApiError('invalid_url', `${field} must use https:// in Live mode.`, field);
  }
}

// What the payer page asks besides email (spec 2.9; its inner shape is ours): each key true to ask.
export const COLLECTABLE = ['name', 'phone', 'shipping_address', 'billing_address'] as const;
const COLLECTED = { name: 'the payer\'s name', phone: 'a phone number', shipping_address: 'a shipping address', billing_address: 'a billing address' } as const;
const collectFlag = (key: (typeof COLLECTABLE)[number]) => z.boolean(coded('invalid_collect', `collect.${key} must be true or false.`)).optional()
  .describe(`true to ask for ${COLLECTED[key]}.`);

export const collectField = z
  .strictObject(
    { name: collectFlag('name'), phone: collectFlag('phone'), shipping_address: collectFlag('shipping_address'), billing_address: collectFlag('billing_address') },
    { error: (issue) => (issue.code === 'unrecognized_keys'
        ? coded('invalid_collect', `collect can ask only for ${COLLECTABLE.join(', ')}, not ${issue.keys.join(', ')}.`).error
        : coded('invalid_collect', 'collect must be an object such as {"phone": true}.').error) },
  )
  .nullish()
  .transform((collect) => {
    if (collect == null) return null;
    const asked = Object.fromEntries(Object.entries(collect).filter(([, on]) => on === true));
    return Object.keys(asked).length === 0 ? null : (asked as Record<string, boolean>);
  })
  .meta({ description: `What the payer page asks besides email: any of ${COLLECTABLE.join(', ')} set to true. Null asks nothing more.` });

export const collectOut = z.record(z.string(), z.boolean()).nullable()
  .describe(`What the payer page asks besides email: each of ${COLLECTABLE.join(', ')} that is asked is true; null asks nothing more.`);

// Merchant metadata: up to 50 keys of at most 40 characters, each a string (≤ 500 characters),
// number, boolean or null. Kept as sent and returned in the payment and its events.
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

// A value is checked below (so each refusal names its key); its JSON Schema says the same.
const metadataValue = z.custom<string | number | boolean | null>(() => true).meta({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] });

/** Metadata as answered and sent in events: what metadataField took, keys to strings, numbers, booleans or null. */
export const metadataOut = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const metadataField = z
  .record(z.string(), metadataValue, coded('invalid_metadata', 'metadata must be an object of keys to values.'))
  .superRefine((metadata, ctx) => {
    const entries = Object.entries(metadata);
    const fail = (message: string, key?: string) =>
      ctx.addIssue({ code: 'custom', path: key === undefined ? [] : [key], message: coded('invalid_metadata', message).error });
    if (entries.length > METADATA_LIMITS.keys) return fail(`metadata can hold at most ${METADATA_LIMITS.keys} keys.`);
    for (const [key, value] of entries) {
      if (characters(key) > METADATA_LIMITS.keyLength || key === '') return fail(`metadata keys must be 1 to ${METADATA_LIMITS.keyLength} characters.`, key);
      const scalar = value === null || ['string', 'number', 'boolean'].includes(typeof value);
      if (!scalar) return fail('metadata values must be strings, numbers, booleans or null.', key);
      if (typeof value === 'string' && characters(value) > METADATA_LIMITS.valueLength) {
        return fail(`metadata values must be at most ${METADATA_LIMITS.valueLength} characters.`, key);
      }
    }
  })
  .nullish()
  .transform((metadata) => metadata ?? null)
  .meta({ description: 'Your own key-value data (≤ 50 keys; keys ≤ 40 characters; values strings ≤ 500 characters, numbers, booleans or null).' });
