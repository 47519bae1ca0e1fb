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

  // The time left to pay, in words as the server writes them (pages/views/time-left.ts): the two
  // largest units while days or hours are left, then minutes, then seconds. Where the browser has
  // no Intl.DurationFormat the words the page came with stay.
  const Duration = Intl.DurationFormat;
  for (const element of document.querySelectorAll('[data-expires]')) {
    const until = Date.parse(element.dataset.expires || '');
    if (Number.isNaN(until) || !Duration) continue;
    const words = new Duration(document.documentElement.lang || 'en', { style: 'long' });
    const parts = (ms) => {
      const days = Math.floor(ms / 86400000);
      const hours = Math.floor((ms % 86400000) / 3600000);
      const minutes = Math.floor((ms % 3600000) / 60000);
      if (days > 0) return hours > 0 ? { days, hours } : { days };
      if (hours > 0) return minutes > 0 ? { hours, minutes } : { hours };
      if (minutes > 0) return { minutes };
      return { seconds: Math.floor(ms / 1000) };
    };
    const tick = () => {
      const left = Math.max(0, until - Date.now());
      element.textContent = words.format(parts(left));
      if (left === 0) clearInterval(timer);
    };
    const timer = setInterval(tick, 1000);
    tick();
  }

  // A long order is folded to one line; where there is room beside the steps, it is shown open.
  if (window.matchMedia('(min-width: 56.25rem)').matches) {
    for (const fold of document.querySelectorAll('details[data-open-wide]')) fold.open = true;
  }

  // The region follows the country: the list of the country's regions (US, Canada, Australia) or
  // the text field, the others hidden and disabled so only the one shown is sent.
  for (const region of document.querySelectorAll('[data-region-of]')) {
    const country = document.querySelector(`select[name="${region.dataset.regionOf}.country"]`);
    if (!country) continue;
    const show = () => {
      const listed = region.querySelector(`[data-region-country="${country.value}"]`) ? country.value : '';
      for (const choice of region.querySelectorAll('[data-region-country]')) {
        const shown = choice.dataset.regionCountry === listed;
        choice.hidden = !shown;
        for (const control of choice.querySelectorAll('input, select')) control.disabled = !shown;
      }
    };
    country.addEventListener('change', show);
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
