import { h, type VNode } from 'preact';
import '../render.ts';

/** An amount exactly as the API gives it (a decimal string, never a float) with its currency code. */
export function Money({ amount, currency }: { amount: string; currency: string }): VNode {
  if (typeof amount !== 'string') throw new TypeError('Money takes the amount as the API\'s decimal string, never a number.');
  return h('span', { class: 'money' }, h('data', { value: amount }, amount), ` ${currency}`) as VNode;
}
