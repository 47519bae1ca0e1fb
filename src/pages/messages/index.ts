import { en, type Messages } from './en.ts';

// The buyer's language, from Accept-Language (RFC 9110 12.5.4): the first language we have, by
// the weights the browser sends; English when none matches.

const CATALOGUES = new Map<string, Messages>([['en', en]]);

export function messagesFor(acceptLanguage: string | undefined): Messages {
  const wanted = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((value) => value !== undefined);
      return { language: tag.split('-')[0] ?? '', weight: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.language !== '' && entry.weight > 0 && !Number.isNaN(entry.weight))
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { language } of wanted) {
    const catalogue = CATALOGUES.get(language);
    if (catalogue) return catalogue;
  }
  return en;
}
