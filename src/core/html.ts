// Server-rendered pages: every dynamic value escaped, no script, one small stylesheet inline.

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.4rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #dde;padding:.4rem;text-align:left;vertical-align:top}
.note{color:#5a6270}.warn{color:#9a4b00}button{font:inherit;padding:.4rem .9rem;margin-right:.5rem}fieldset{border:1px solid #dde;margin:1rem 0}
code{background:#f3f4f7;padding:0 .2rem}nav a{margin-right:1rem}`;

/** A whole page. `body` must already be escaped. */
export function page(title: string, body: string, nav = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Payment Service</title><style>${STYLE}</style></head><body>${nav}${body}</body></html>`;
}

/** A hidden form field. */
export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}
