// Cancelling a waiting tool call (wait_for_payment). A 2026-era client cancels by closing the
// call's request, which the request's own signal tells. A 2025-era client sends
// notifications/cancelled naming the call's JSON-RPC id in a request of its own, which a
// stateless server answers on another instance: so the calls that wait are kept here by caller
// and id, and a cancellation from the same caller (credential) aborts its call.

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The id of a JSON-RPC tools/call message, or undefined for anything else. */
export function callIdOf(body: unknown): string | number | undefined {
  if (!isObject(body) || body.method !== 'tools/call') return undefined;
  return typeof body.id === 'string' || typeof body.id === 'number' ? body.id : undefined;
}

/** The request id a notifications/cancelled message names, or undefined for anything else. */
export function cancelledIdOf(body: unknown): string | number | undefined {
  if (!isObject(body) || body.method !== 'notifications/cancelled' || !isObject(body.params)) return undefined;
  const id = body.params.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

export class WaitingCalls {
  readonly #calls = new Map<string, AbortController>();

  static #key(caller: string, id: string | number): string {
    return `${caller}\u0000${typeof id}:${id}`;
  }

  /** Calls being tracked now. */
  get size(): number {
    return this.#calls.size;
  }

  /**
   * A signal for the caller's call `id` that aborts on its cancellation or when `closed` aborts;
   * `cancelled` resolves on its cancellation alone; `done` forgets it.
   */
  track(caller: string, id: string | number, closed: AbortSignal): { signal: AbortSignal; cancelled: Promise<'cancelled'>; done(): void } {
    const key = WaitingCalls.#key(caller, id);
    const controller = new AbortController();
    this.#calls.set(key, controller);
    const cancelled = new Promise<'cancelled'>((resolve) => controller.signal.addEventListener('abort', () => resolve('cancelled'), { once: true }));
    return {
      signal: AbortSignal.any([closed, controller.signal]),
      cancelled,
      done: () => {
        if (this.#calls.get(key) === controller) this.#calls.delete(key);
      },
    };
  }

  /** Aborts the caller's call `id`, if it is waiting. */
  cancel(caller: string, id: string | number): void {
    const key = WaitingCalls.#key(caller, id);
    this.#calls.get(key)?.abort();
    this.#calls.delete(key);
  }
}
