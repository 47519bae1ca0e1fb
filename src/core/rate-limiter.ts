import type { Clock } from './clock.ts';

/** Counts refusals per named limit (the metrics): `refusals(limit)` is the counter of one limit. */
export interface RefusalRecorder {
  refusals(limit: string): () => void;
}

// A fixed one-minute window counter per key, on the injected clock. Written here rather than
// taken from @fastify/rate-limit because the limits count per business and per agent after
// authentication, across REST and MCP, and must move with the test clock.
export class WindowCounter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #clock: Clock;
  #window = -1;
  #counts = new Map<string, number>();
  readonly #refused: () => void;

  /** refused: called on every refusal (a take() answering false), for the metrics. */
  constructor(limit: number, windowMs: number, clock: Clock, refused: () => void = () => undefined) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#clock = clock;
    this.#refused = refused;
  }

  /** Counts one use of `key`; false when the key is over its limit in the current window. */
  take(key: string): boolean {
    const window = Math.floor(this.#clock.now().getTime() / this.#windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts = new Map();
    }
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    if (count <= this.#limit) return true;
    this.#refused();
    return false;
  }
}
