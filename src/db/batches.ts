// Deleting a backlog a batch at a time: each batch is its own short statement, so retention never
// holds a long lock or a long transaction.
export const BATCH = 5_000;

/** Runs a deleting statement (of at most BATCH rows) until it deletes less than a batch; returns the total. */
export async function inBatches(run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await run();
    total += deleted;
    if (deleted < BATCH) return total;
  }
}
