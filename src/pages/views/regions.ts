import { REGION_CODES } from '../../resources/shared/addresses.ts';

// The official English names of the regions whose codes the US, Canada and Australia need in an
// address (addresses.ts REGION_CODES). Intl has no names for subdivisions, so they are written
// here, and shown in every language: they are the names on the envelope.

const US: Record<string, string> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado', CT: 'Connecticut', DE: 'Delaware',
  FL: 'Florida', GA: 'Georgia', HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois', IN: 'Indiana', IA: 'Iowa', KS: 'Kansas', KY: 'Kentucky',
  LA: 'Louisiana', ME: 'Maine', MD: 'Maryland', MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota', MS: 'Mississippi', MO: 'Missouri',
  MT: 'Montana', NE: 'Nebraska', NV: 'Nevada', NH: 'New Hampshire', NJ: 'New Jersey', NM: 'New Mexico', NY: 'New York',
  NC: 'North Carolina', ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon', PA: 'Pennsylvania', RI: 'Rhode Island',
  SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah', VT: 'Vermont', VA: 'Virginia', WA: 'Washington',
  WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming', DC: 'District of Columbia', AS: 'American Samoa', GU: 'Guam',
  MP: 'Northern Mariana Islands', PR: 'Puerto Rico', VI: 'U.S. Virgin Islands', UM: 'U.S. Minor Outlying Islands',
  AA: 'Armed Forces Americas', AE: 'Armed Forces Europe', AP: 'Armed Forces Pacific',
};
const CA: Record<string, string> = {
  AB: 'Alberta', BC: 'British Columbia', MB: 'Manitoba', NB: 'New Brunswick', NL: 'Newfoundland and Labrador', NS: 'Nova Scotia',
  NT: 'Northwest Territories', NU: 'Nunavut', ON: 'Ontario', PE: 'Prince Edward Island', QC: 'Quebec', SK: 'Saskatchewan', YT: 'Yukon',
};
const AU: Record<string, string> = {
  ACT: 'Australian Capital Territory', NSW: 'New South Wales', NT: 'Northern Territory', QLD: 'Queensland', SA: 'South Australia',
  TAS: 'Tasmania', VIC: 'Victoria', WA: 'Western Australia',
};

const NAMES: Record<string, Record<string, string>> = { US, CA, AU };

/** The countries whose addresses take a region from a list. */
export const LISTED_REGION_COUNTRIES = Object.keys(REGION_CODES);

/** A listed country's regions as the list shows them, by name. */
export function regionsOf(country: string): Array<{ code: string; name: string }> {
  return (REGION_CODES[country] ?? []).map((code) => ({ code, name: NAMES[country]?.[code] ?? code })).sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

const plain = (text: string) => text.toLowerCase().replace(/[.\s]+/g, ' ').trim();

/**
 * The region's code from what a buyer typed without the list (no script): its code in any case,
 * or its name ("california", "New South Wales"). Anything else is kept as typed, to be refused.
 */
export function regionCode(country: string, typed: string): string {
  const codes = REGION_CODES[country];
  if (!codes) return typed;
  if (codes.includes(typed.toUpperCase())) return typed.toUpperCase();
  const found = Object.entries(NAMES[country] ?? {}).find(([, name]) => plain(name) === plain(typed));
  return found ? found[0] : typed;
}
