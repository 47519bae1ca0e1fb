// Calls made in one turn of the event loop, run as one batch: one statement for many rows
// instead of one each (the dispatcher starts a fetch's jobs in one turn; replies that arrive
// together are handled in one). The batch runs once the turn's callbacks are done
// (setImmediate), so no caller waits past the turn it called in. DataLoader does the same for
// loads; this also serves writes, and is small enough not to take a dependency for.

interface Call<I, O> {
  item: I;
  resolve(result: O): void;
  reject(error: unknown): void;
}

/** `run` gets the turn's items in call order and answers each one's result in the same order. */
export function perTurn<I, O>(run: (items: readonly I[]) => Promise<readonly O[]>): (item: I) => Promise<O> {
  let calls: Array<Call<I, O>> = [];
  const flush = () => {
    const batch = calls;
    calls = [];
    Promise.resolve()
      .then(() => run(batch.map((call) => call.item)))
      .then(
        (results) => batch.forEach((call, i) => call.resolve(results[i]!)),
        (error: unknown) => batch.forEach((call) => call.reject(error)),
      );
  };
  return (item) => new Promise<O>((resolve, reject) => {
    if (calls.length === 0) setImmediate(flush);
    calls.push({ item, resolve, reject });
  });
}

/**
 * As perTurn, one batch per key and turn (a batch of database writes per pool): `run` gets the
 * key and that key's items. Keys are held weakly.
 */
export function perTurnByKey<K extends object, I, O>(run: (key: K, items: readonly I[]) => Promise<readonly O[]>): (key: K, item: I) => Promise<O> {
  const batches = new WeakMap<K, (item: I) => Promise<O>>();
  return (key, item) => {
    let batch = batches.get(key);
    if (batch === undefined) {
      batch = perTurn((items: readonly I[]) => run(key, items));
      batches.set(key, batch);
    }
    return batch(item);
  };
}
