import { escapeHtml } from '../../core/html.ts';

/** A Unix time as people read it (UTC, to the minute), or a dash. */
export function when(seconds: number | null): string {
  return seconds === null ? '-' : escapeHtml(new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 16));
}
