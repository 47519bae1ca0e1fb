import { Writable } from 'node:stream';

// The app's log as a test reads it: every line the logger writes, kept in memory and parsed.

export interface LogCapture {
  stream: Writable;
  /** Every line written so far, as written. */
  lines(): string[];
  /** Every line written so far, parsed (the logger writes one JSON object a line). */
  entries(): Array<Record<string, unknown>>;
}

export function captureLog(): LogCapture {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const lines = () => text.split('\n').filter((line) => line !== '');
  return { stream, lines, entries: () => lines().map((line) => JSON.parse(line) as Record<string, unknown>) };
}
