import { z } from 'zod';
import type { IdPrefix } from '../../core/ids.ts';

/**
 * The input of an operation on one object: its id, from the path. Any text is accepted; an id
 * of the wrong kind simply finds nothing (404).
 */
export function idInput(prefix: IdPrefix) {
  return z.object({ id: z.string().describe(`The object's id (${prefix}_…).`) });
}
