import type { VNode } from 'preact';
import { Button, Form, html } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';

/** Paying from the buyer's own wallet: in Live the address and amount; in Test no address exists. */
export type Wallet =
  | {
    kind: 'live'; address: string; amountCoin: string; token: string; network: string; price: string; qr: VNode;
    /** The coin shown, and every coin served (the buyer picks another by a link; no script needed). */
    coin: string; choices: Array<{ coin: string; token: string; network: string }>;
  }
  | { kind: 'test' };

/** A value to type or paste into a wallet; its Copy button appears only where the script runs. */
function CopyField({ t, id, label, value, unit }: { t: Messages; id: string; label: string; value: string; unit?: string }): VNode {
  return html`<div class="copy-field">
    <dt>${label}</dt>
    <dd><code id=${id}>${value}</code>${unit ? ` ${unit}` : ''} <button type="button" class="button secondary copy" data-copy=${id} data-copied=${t.copied} hidden>${t.copy}</button></dd>
  </div>`;
}

/** Links to the same page showing another served coin; the one shown is marked (border, check and "Selected"). */
function CoinChoice({ t, wallet, coinHref }: { t: Messages; wallet: Extract<Wallet, { kind: 'live' }>; coinHref: (coin: string) => string }): VNode | null {
  if (wallet.choices.length < 2) return null;
  return html`<nav aria-label=${t.chooseCoin} class="coin-choice">
    <p>${t.chooseCoin}</p>
    <ul>${wallet.choices.map((choice) => html`<li>${choice.coin === wallet.coin
      ? html`<a href=${coinHref(choice.coin)} aria-current="true" class="chosen"><span>${t.coinOption(choice.token, choice.network)}</span> <span class="selected-mark">${t.selected}</span></a>`
      : html`<a href=${coinHref(choice.coin)}>${t.coinOption(choice.token, choice.network)}</a>`}</li>`)}</ul>
  </nav>`;
}

/** Test mode: what the buyer's money could do, played out (the page puts them among its Test controls). */
export function WalletTestButtons({ t, action }: { t: Messages; action: string }): VNode {
  return Form({ action, label: t.byWallet, children: [
    Button({ name: 'outcome', value: 'paid', children: t.testPaid }),
    Button({ name: 'outcome', value: 'underpaid', children: t.testUnderpaid }),
    Button({ name: 'outcome', value: 'held_elsewhere', children: t.testElsewhere }),
    Button({ name: 'outcome', value: 'late', children: t.testLate }),
  ] });
}

export function WalletPanel({ t, wallet, coinHref, heading }: { t: Messages; wallet: Wallet; coinHref: (coin: string) => string; heading: string }): VNode {
  if (wallet.kind === 'test') {
    return html`<section aria-labelledby="wallet-heading" class="way-to-pay">
      <h3 id="wallet-heading">${heading}</h3>
      <p class="muted">${t.walletTestText}</p>
    </section>`;
  }
  return html`<section aria-labelledby="wallet-heading" class="way-to-pay">
    <h3 id="wallet-heading">${heading}</h3>
    ${CoinChoice({ t, wallet, coinHref })}
    <p>${t.byWalletHint(wallet.token, wallet.network)}</p>
    <div class="wallet">
      <div class="qr">${wallet.qr}</div>
      <dl class="copy-fields">
        ${CopyField({ t, id: 'wallet-amount', label: t.sendAmount, value: wallet.amountCoin, unit: wallet.token })}
        ${CopyField({ t, id: 'wallet-address', label: t.toAddress, value: wallet.address })}
        <div><dt>${t.network}</dt><dd>${wallet.network}</dd></div>
      </dl>
    </div>
    <p class="muted">${t.priceIs(wallet.price)}</p>
  </section>`;
}
