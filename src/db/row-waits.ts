import type { Channel } from './notifications.ts';

// Callers waiting for a row to change (a payment's status), kept in memory by the row's id and
// woken by the process's notification listener: a wait holds a timer and a callback, never a
// database connection. Each waiter ends exactly once, on the first of: a notice for its row, its
// time bound (real time: it bounds how long a request is held, not a rule of the business), its
// caller going away (the signal), or the process closing; ending removes it from the map.

export type WakeReason = 'changed' | 'timeout' | 'aborted' | 'closed';

export interface Waiter {
  /** Resolves once, with why the waiter ended. */
  readonly woken: Promise<WakeReason>;
  /** Ends the waiter now (nothing more to wait for); harmless after it ended. */
  cancel(): void;
}

type End = (reason: WakeReason) => void;

export class RowWaits {
  readonly #waiters = new Map<string, Set<End>>();
  #size = 0;
  #closed = false;

  /** Waiters registered and not yet ended, across every row. */
  get size(): number {
    return this.#size;
  }

  /**
   * A waiter for row `id`, registered now (register before reading the row: a change between
   * the read and the wait still wakes it), ending at the latest after `ms`.
   */
  subscribe(id: string, ms: number, signal?: AbortSignal): Waiter {
    if (this.#closed) return { woken: Promise.resolve('closed'), cancel: () => undefined };
    if (signal?.aborted) return { woken: Promise.resolve('aborted'), cancel: () => undefined };
    let end!: End;
    const woken = new Promise<WakeReason>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => end('aborted');
      end = (reason) => {
        const set = this.#waiters.get(id);
        if (!set?.delete(end)) return;
        if (set.size === 0) this.#waiters.delete(id);
        this.#size -= 1;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(reason);
      };
      let set = this.#waiters.get(id);
      if (set === undefined) {
        set = new Set();
        this.#waiters.set(id, set);
      }
      set.add(end);
      this.#size += 1;
      timer = setTimeout(() => end('timeout'), Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    return { woken, cancel: () => end('aborted') };
  }

  /** Wakes every waiter of row `id`. */
  wake(id: string, reason: WakeReason = 'changed'): void {
    const set = this.#waiters.get(id);
    if (set) for (const end of [...set]) end(reason);
  }

  /** Wakes every waiter of every row (notices may have been missed: each looks again). */
  wakeAll(reason: WakeReason = 'changed'): void {
    for (const id of [...this.#waiters.keys()]) this.wake(id, reason);
  }

  /** Ends every waiter and refuses new ones: a closing server answers its waits now. */
  close(): void {
    this.#closed = true;
    this.wakeAll('closed');
  }

  /** The NOTIFY channel whose payload is the id of a changed row. */
  channel(name: string): Channel {
    return { name, onNotice: (id) => this.wake(id), onGap: () => this.wakeAll() };
  }
}
