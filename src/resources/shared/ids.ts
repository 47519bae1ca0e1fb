import { z } from 'zod';
import type { IdPrefix } from '../../core/ids.ts';

/** A path id. Any text is accepted; an id of the wrong kind simply finds nothing (404). */
export function idParam(prefix: IdPrefix) {
  return z.string().describe(`The object's id (${prefix}_…).`);
}
