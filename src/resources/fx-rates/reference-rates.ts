// The ECB's euro reference rates (eurofxref-daily.xml), read as the hostile text it may be:
//   <gesmes:Envelope …><Cube><Cube time='2026-11-26'><Cube currency='USD' rate='1.0512'/>…</Cube></Cube></gesmes:Envelope>
// A purpose-built reader of the Cube elements, not an XML library: the format needs three
// attributes of one element, and a reader that knows no DTD can expand no entity. Anything the
// format never has (a DOCTYPE, an entity declaration, CDATA, a tag over 512 characters, a tag
// inside a tag) refuses the whole document. Linear in the text: no regular expression runs over
// more than one tag.

/** The text the feed sent is not reference rates this reader trusts; the message says why. */
export class RefusedFeed extends Error {}

/** One day's rates: units of each currency per euro, as the decimal strings the feed wrote. */
export interface ReferenceDay {
  /** YYYY-MM-DD */
  day: string;
  perEuro: ReadonlyMap<string, string>;
  /** Currencies named twice in the day: neither value is trusted. */
  ambiguous: ReadonlySet<string>;
}

const MAX_TAG_CHARS = 512;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const CURRENCY = /^[A-Z]{3}$/;
const TAG_NAME = /^\/?([A-Za-z_][\w.:-]*)/;
const ATTRIBUTE = /\s([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of tag.matchAll(ATTRIBUTE)) {
    const name = match[1]!;
    if (attributes.has(name)) throw new RefusedFeed(`an element names its attribute "${name}" twice`);
    attributes.set(name, match[2] ?? match[3] ?? '');
  }
  return attributes;
}

function isCalendarDay(day: string): boolean {
  if (!DAY.test(day)) return false;
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(day);
}

/** Each tag of the document, without its angle brackets; comments and the XML declaration skipped. */
function* tags(xml: string): Generator<string> {
  let at = 0;
  for (;;) {
    const open = xml.indexOf('<', at);
    if (open === -1) return;
    if (xml.startsWith('<!--', open)) {
      const end = xml.indexOf('-->', open + 4);
      if (end === -1) throw new RefusedFeed('a comment never ends');
      at = end + 3;
      continue;
    }
    if (xml.startsWith('<!', open)) throw new RefusedFeed('it has a DOCTYPE, an entity declaration or CDATA, which reference rates never have');
    const close = xml.indexOf('>', open + 1);
    if (close === -1) throw new RefusedFeed('a tag never ends');
    const tag = xml.slice(open + 1, close);
    if (tag.length > MAX_TAG_CHARS) throw new RefusedFeed(`a tag is over ${MAX_TAG_CHARS} characters`);
    if (tag.includes('<')) throw new RefusedFeed('a tag opens inside a tag');
    at = close + 1;
    if (!tag.startsWith('?')) yield tag;
  }
}

/**
 * The newest day of rates in the document. Refuses a document with no day, two days of the same
 * date, a rate outside a day, or a day or currency not written as the format writes them. A
 * rate's value is checked where it is used (derive.ts), so a bad value of a currency the
 * service does not price in refuses nothing.
 */
export function parseReferenceRates(xml: string): ReferenceDay {
  const days = new Map<string, { perEuro: Map<string, string>; ambiguous: Set<string> }>();
  // The Cube elements open around the current position: 'day' for one with a time, else 'other'.
  const open: Array<'day' | 'other'> = [];
  let current: { perEuro: Map<string, string>; ambiguous: Set<string> } | undefined;
  for (const tag of tags(xml)) {
    const name = TAG_NAME.exec(tag)?.[1];
    if (name !== 'Cube') continue;
    if (tag.startsWith('/')) {
      if (open.pop() === 'day') current = undefined;
      continue;
    }
    const attributes = attributesOf(tag);
    const selfClosing = tag.endsWith('/');
    const time = attributes.get('time');
    const currency = attributes.get('currency');
    if (time !== undefined) {
      if (current) throw new RefusedFeed('a day of rates opens inside another');
      if (!isCalendarDay(time)) throw new RefusedFeed(`"${time.slice(0, 20)}" is not a day written YYYY-MM-DD`);
      if (days.has(time)) throw new RefusedFeed(`the day ${time} is there twice`);
      const day = { perEuro: new Map<string, string>(), ambiguous: new Set<string>() };
      days.set(time, day);
      if (!selfClosing) {
        current = day;
        open.push('day');
      }
      continue;
    }
    if (currency !== undefined) {
      if (!current) throw new RefusedFeed('a rate stands outside any day');
      if (!CURRENCY.test(currency)) throw new RefusedFeed(`"${currency.slice(0, 20)}" is not a currency code`);
      const rate = attributes.get('rate') ?? '';
      if (current.perEuro.has(currency)) current.ambiguous.add(currency);
      current.perEuro.set(currency, rate);
    }
    if (!selfClosing) open.push('other');
  }
  const newest = [...days.keys()].sort().at(-1);
  if (newest === undefined) throw new RefusedFeed('it holds no day of rates');
  return { day: newest, ...days.get(newest)! };
}
