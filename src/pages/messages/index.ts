import { de } from './de.ts';
import { en, type Messages } from './en.ts';

// The buyer's language, from Accept-Language (RFC 9110 12.5.4): the first language we have, by
// the weights the browser sends; English when none matches.

const CATALOGUES = new Map<string, Messages>([['en', en], ['de', de]]);

/** The answers for the headers seen most (browsers send a few dozen distinct ones), bounded. */
const chosen = new Map<string, Messages>();
const CHOSEN_MAX = 256;

export function messagesFor(acceptLanguage: string | undefined): Messages {
  const header = acceptLanguage ?? '';
  let messages = chosen.get(header);
  if (messages === undefined) {
    messages = negotiate(header);
    if (chosen.size >= CHOSEN_MAX) chosen.clear();
    chosen.set(header, messages);
  }
  return messages;
}

function negotiate(acceptLanguage: string): Messages {
  const wanted = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      // A weight that is not a number (q=abc) makes the entry unreadable: it is skipped.
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q === undefined ? 1 : /^q=(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(q) ? Number(q.slice(2)) : Number.NaN;
      return { language: tag.split('-')[0] ?? '', weight, index };
    })
    .filter((entry) => entry.language !== '' && entry.weight > 0 && !Number.isNaN(entry.weight))
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { language } of wanted) {
    const catalogue = CATALOGUES.get(language);
    if (catalogue) return catalogue;
  }
  return en;
}

/** The catalogue of a language code stored earlier (a buyer's, for their mail); English when we have none. */
export function messagesOfLanguage(lang: string | null): Messages {
  return (lang === null ? undefined : CATALOGUES.get(lang)) ?? en;
}
