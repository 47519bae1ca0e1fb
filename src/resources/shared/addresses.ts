import { z } from 'zod';
import type { StoredAddress } from '../../db/schema.ts';
import { characters, coded } from '../../core/validation.ts';

// Postal addresses and what each country needs (spec 2.3, 4.1, 7.2 invalid_address).

/** The official region codes of the countries whose addresses need one (the payer page lists them). */
export const REGION_CODES: Readonly<Record<string, readonly string[]>> = {
  US: ('AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND ' +
    'OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR VI UM AA AE AP').split(' '),
  CA: 'AB BC MB NB NL NS NT NU ON PE QC SK YT'.split(' '),
  AU: 'ACT NSW NT QLD SA TAS VIC WA'.split(' '),
};

const EU = 'AT BE BG HR CY CZ DK EE FI FR DE GR IE IT LV LT LU MT NL PL PT RO SK SI ES SE'.split(' ');

// Postal code formats where a wrong one is a sure mistake; elsewhere presence is enough.
const POSTAL_FORMATS: Record<string, RegExp> = {
  US: /^\d{5}(-\d{4})?$/,
  CA: /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i,
  AU: /^\d{4}$/,
  GB: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i,
};

/** Which parts a country's addresses cannot do without. */
export function requiredParts(country: string): ReadonlyArray<'line1' | 'city' | 'region' | 'postal_code'> {
  if (country in REGION_CODES) return ['line1', 'city', 'region', 'postal_code'];
  // Ireland's Eircode is not used by every address.
  if (country === 'GB' || (EU.includes(country) && country !== 'IE')) return ['line1', 'city', 'postal_code'];
  return ['line1', 'city'];
}

const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ']);
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return false;
  return regionNames.of(code) !== code;
}

/**
 * The codes isCountryCode accepts, less old aliases (UK, DD) of a country that has its own code:
 * what the payer page's country list offers.
 */
export const COUNTRY_CODES: readonly string[] = Array.from({ length: 26 * 26 }, (_, index) => String.fromCharCode(65 + Math.floor(index / 26), 65 + (index % 26)))
  .filter((code) => isCountryCode(code) && Intl.getCanonicalLocales(`und-${code}`)[0] === `und-${code}`);

const LIMITS = { name: 200, line1: 200, line2: 200, city: 100, region: 100, postal_code: 20 } as const;

/** What each part of an address is, in the API's words (input and output). */
const PARTS = {
  name: 'Who receives it.',
  line1: 'First line: street and number. Required.',
  line2: 'Second line: flat, floor, building.',
  city: 'City or town. Required.',
  region: 'State, province or territory. US, CA and AU require it, as the official code (such as "NY", "ON", "NSW").',
  postal_code: 'Postal or ZIP code. US, CA, AU, GB and the EU (except Ireland) require it; US, CA, AU and GB codes are checked for their format.',
  country: 'ISO 3166-1 alpha-2 country code such as "US", any letter case; stored uppercase.',
} as const;

function part(key: keyof typeof LIMITS) {
  return z
    .string(coded('invalid_address', `${key} must be a string.`))
    .refine((text) => characters(text) <= LIMITS[key], coded('too_long', `${key} must be at most ${LIMITS[key]} characters.`))
    .nullish()
    .meta({ description: `${PARTS[key]} Up to ${LIMITS[key]} characters.`, maxLength: LIMITS[key] });
}

function addressObject(field: string) {
  return z.object(
    {
      name: part('name'),
      line1: part('line1'),
      line2: part('line2'),
      city: part('city'),
      region: part('region'),
      postal_code: part('postal_code'),
      country: z.string(coded('invalid_address', 'country is required: a two-letter country code such as "US".'))
        .meta({ description: PARTS.country, minLength: 2, maxLength: 2 }),
    },
    coded('invalid_address', `${field} must be an object with line1, city, region, postal_code and country.`),
  );
}

function blankToNull(text: string | null | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

function normalise(input: z.infer<ReturnType<typeof addressObject>>, ctx: z.RefinementCtx): StoredAddress {
  const country = input.country.trim().toUpperCase();
  const address: StoredAddress = {
    name: blankToNull(input.name),
    line1: blankToNull(input.line1),
    line2: blankToNull(input.line2),
    city: blankToNull(input.city),
    region: blankToNull(input.region),
    postal_code: blankToNull(input.postal_code),
    country,
  };
  const fail = (path: string, message: string) => {
    ctx.addIssue({ code: 'custom', path: [path], message: coded('invalid_address', message).error });
    return z.NEVER;
  };
  if (!isCountryCode(country)) return fail('country', 'country must be a two-letter ISO 3166 country code such as "US".');
  for (const key of requiredParts(country)) {
    if (address[key] === null) return fail(key, `${key} is required for addresses in ${country}.`);
  }
  const regions = REGION_CODES[country];
  if (regions && address.region !== null) {
    address.region = address.region.toUpperCase();
    if (!regions.includes(address.region)) {
      return fail('region', `region must be a ${country} region code, one of ${regions.join(', ')}.`);
    }
  }
  const format = POSTAL_FORMATS[country];
  if (format && address.postal_code !== null) {
    if (!format.test(address.postal_code)) return fail('postal_code', `postal_code is not a valid ${country} postal code.`);
    address.postal_code = address.postal_code.toUpperCase();
  }
  return address;
}

/** A postal address in the parameter `field`; its errors name that parameter or its parts. */
export function addressField(field: string) {
  return addressObject(field).transform(normalise).meta({
    description: 'Postal address: line1, line2, city, region, postal_code, country (two letters). ' +
      'Every address needs line1 and city; US, CA and AU need a region code; US, CA, AU, GB and the EU need a postal code.',
  });
}

export const addressOut = z.object({
  name: z.string().nullable().describe(PARTS.name),
  line1: z.string().nullable().describe('First line: street and number.'),
  line2: z.string().nullable().describe(PARTS.line2),
  city: z.string().nullable().describe('City or town.'),
  region: z.string().nullable().describe('State, province or territory; the official code for the US, Canada and Australia.'),
  postal_code: z.string().nullable().describe('Postal or ZIP code.'),
  country: z.string().describe('ISO 3166-1 alpha-2 country code, uppercase.'),
}).describe('A postal address.');
