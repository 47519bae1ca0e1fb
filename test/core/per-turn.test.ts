import { expect, it } from 'vitest';
import { perTurn } from '../../src/core/per-turn.ts';

// Calls made in one turn of the event loop run as one batch (the delivery worker's loads and
// writes); each caller gets its own result, or the batch's error.

it('runs the calls of one turn as one batch, each caller getting its own result, and a later turn as another', async () => {
  const batches: number[][] = [];
  const double = perTurn(async (items: readonly number[]) => {
    batches.push([...items]);
    return items.map((item) => item * 2);
  });
  expect(await Promise.all([double(1), double(2), double(3)])).toEqual([2, 4, 6]);
  expect(await double(4)).toBe(8);
  expect(batches).toEqual([[1, 2, 3], [4]]);
});

it('rejects every caller of a batch that fails, and the next batch runs anew', async () => {
  let fail = true;
  const echo = perTurn(async (items: readonly string[]) => {
    if (fail) throw new Error('down');
    return items;
  });
  await expect(Promise.all([echo('a'), echo('b')])).rejects.toThrow('down');
  fail = false;
  expect(await echo('c')).toBe('c');
});
