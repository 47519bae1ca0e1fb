// The payer pages' script: copy buttons, the time left, following the payment as it moves, and
// going on to the merchant once paid. Every page works without it; this only makes it smoother.
(() => {
  'use strict';

  // Copy buttons are in the page, hidden: shown only where copying works.
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const target = document.getElementById(button.dataset.copy || '');
    if (!target || !navigator.clipboard) continue;
    const label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText((target.textContent || '').trim());
        button.textContent = button.dataset.copied || label;
        setTimeout(() => { button.textContent = label; }, 2000);
      } catch {
        // Copying refused (permissions): the value stays there to select by hand.
      }
    });
  }

  // The time left to pay, beside the deadline the page states.
  for (const element of document.querySelectorAll('[data-expires]')) {
    const until = Date.parse(element.dataset.expires || '');
    if (Number.isNaN(until)) continue;
    const two = (n) => String(n).padStart(2, '0');
    const tick = () => {
      const left = Math.max(0, until - Date.now());
      const hours = Math.floor(left / 3600000);
      const clock = `${hours > 0 ? `${hours}:` : ''}${two(Math.floor(left / 60000) % 60)}:${two(Math.floor(left / 1000) % 60)}`;
      element.textContent = ` (${element.dataset.label}: ${clock})`;
      if (left === 0) clearInterval(timer);
    };
    const timer = setInterval(tick, 1000);
    tick();
  }

  // Follow the payment: when its status is no longer the one shown, show the page as it is now.
  const followed = document.querySelector('[data-status-url]');
  if (followed) {
    const shown = followed.dataset.status;
    let delay = 3000;
    const poll = async () => {
      try {
        const response = await fetch(followed.dataset.statusUrl, { headers: { accept: 'application/json' }, cache: 'no-store' });
        if (response.ok) {
          const { status } = await response.json();
          if (status !== shown) {
            location.reload();
            return;
          }
        }
      } catch {
        // Offline for a moment: try again later.
      }
      delay = Math.min(delay * 1.25, 15000);
      setTimeout(poll, delay);
    };
    setTimeout(poll, delay);
  }

  // Paid, with somewhere to go: after a moment to read the receipt, go on to the merchant.
  const paid = document.querySelector('[data-next]');
  if (paid) {
    const note = paid.querySelector('.going-on');
    if (note) note.hidden = false;
    setTimeout(() => { location.assign(paid.dataset.next); }, 4000);
  }
})();
