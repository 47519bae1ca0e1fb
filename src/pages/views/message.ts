import type { VNode } from 'preact';
import { html, Layout } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';

/** A page that only says something (not found, too many tries, a step that went wrong), in the buyer's language. */
export function payerMessagePage({ t, title, text }: { t: Messages; title: string; text: string }): VNode {
  return Layout({ title, lang: t.lang, skipLabel: t.skip, children: html`<div class="pay-single"><div class="pay-card"><h1>${title}</h1><p>${text}</p></div></div>` });
}
