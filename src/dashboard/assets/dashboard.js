// The dashboard's one script: copy buttons, and the navigation's menus closing as menus do. Every
// page works without it (each value to copy is in a readonly field to select by hand, each menu is
// a disclosure its summary closes); this only makes copying one click and closing one key.
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

  // An open menu of the navigation closes with Escape (focus back on its summary when it was
  // inside), and when the person clicks anywhere else.
  const menus = [...document.querySelectorAll('details.nav-group, details.nav-menu')];
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    for (const menu of menus) {
      if (!menu.open) continue;
      const within = menu.contains(document.activeElement);
      menu.open = false;
      if (within) menu.querySelector('summary')?.focus();
    }
  });
  document.addEventListener('click', (event) => {
    for (const menu of menus) if (menu.open && !menu.contains(event.target)) menu.open = false;
  });

  // A readonly field selects its whole value when reached, ready to copy.
  for (const field of document.querySelectorAll('[data-select-on-focus]')) {
    field.addEventListener('focus', () => field.select());
  }
})();
