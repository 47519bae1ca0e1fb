// The dashboard's one script: copy buttons. Every page works without it (each value to copy is in
// a readonly field to select by hand); this only shows the buttons and makes copying one click.
(() => {
  'use strict';

  for (const button of document.querySelectorAll('button[data-copy]')) {
    const field = document.getElementById(button.dataset.copy || '');
    const status = document.getElementById(`${button.dataset.copy}-status`);
    if (!field || !navigator.clipboard) continue;
    button.hidden = false;
    let clear;
    const say = (text) => {
      if (!status) return;
      status.textContent = text;
      clearTimeout(clear);
      clear = setTimeout(() => { status.textContent = ''; }, 5000);
    };
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText('value' in field ? field.value : (field.textContent || '').trim());
        say('Copied');
      } catch {
        // Copying refused (permissions): the value is selected, to copy by hand.
        if ('select' in field) {
          field.focus();
          field.select();
        }
        say('Not copied: press Ctrl+C (⌘C) to copy the selection');
      }
    });
  }

  // A readonly field selects its whole value when reached, ready to copy.
  for (const field of document.querySelectorAll('[data-select-on-focus]')) {
    field.addEventListener('focus', () => field.select());
  }
})();
