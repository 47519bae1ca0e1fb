import { operatorPrincipal, operatorPrincipalFor, type OwnedKind } from '../auth/operator.ts';
import type { AppContext, OperationContext } from '../verbs/context.ts';

// What every operator command is, and the small parsing helpers they share.

export class UsageError extends Error {}

export type Flags = Record<string, string | boolean | undefined>;

export interface Command {
  usage: string;
  /** What it does and prints, for the CLI reference (docs/reference/cli.md, generated). */
  description: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  /** `say`: a line of progress for the person watching (stderr: stdout keeps the one result). */
  run(context: AppContext, flags: Flags, positionals: string[], say: (line: string) => void): Promise<{ json: object; text: string }>;
}

export function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required.`);
  return value;
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}.`);
  }
  return value as T;
}

export function positional(positionals: string[], what: string, usage: string): string {
  const value = positionals[0];
  if (!value) throw new UsageError(`Name the ${what}: ${usage}`);
  return value;
}

/** The operator acting in a business and mode (business-wide actions ignore the mode). */
export async function asOperator(context: AppContext, businessId: string, livemode = false): Promise<OperationContext> {
  return { ...context, principal: await operatorPrincipal(context.db, businessId, livemode) };
}

/** The operator acting on an object named by id: in that object's own business and mode. */
export async function asOperatorOn(context: AppContext, kind: OwnedKind, id: string): Promise<OperationContext> {
  return { ...context, principal: await operatorPrincipalFor(context.db, kind, id) };
}
