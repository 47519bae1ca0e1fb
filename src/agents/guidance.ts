import { heldByAgents } from '../auth/scopes.ts';
import type { Operation } from '../verbs/operation.ts';
import { asksApproval } from './policy.ts';

// What a caller, a model above all, needs to choose a call, said the same way for every
// operation: what it does to money and data, what it costs against the caller's limits, when to
// use it, and for a call that can wait for a person, how approval goes. The sentences are made
// here from what the registry knows of the operation (its scope, `writes`, `spends`, session
// starts, paging, waiting); only `writes` and `useWhen` are the operation's own words. MCP hosts
// show the result to the model, and the OpenAPI document shows it too, so it stays short.

/** What the call does to money and data. No operation moves money: buyers do, when they pay. */
function effect(operation: Operation): string {
  if (operation.writes === undefined) return 'Effect: reads only; moves no money.';
  return `Effect: ${operation.writes}; ${operation.spends ? 'no money moves until someone pays it' : 'moves no money'}.`;
}

/** The requests of the caller's rate limit a call takes. */
function requests(operation: Operation): string {
  if (operation.waits) return 'one request, however long it waits';
  return 'starting_after' in operation.input.shape ? 'one request per page (up to 100)' : 'one request';
}

/** What one call costs: requests, session starts, a connected agent's spend policy. */
function cost(operation: Operation): string {
  const counted = [requests(operation)];
  if (operation.sessionStart) counted.push('one of the account\'s payment starts a minute in its mode (12 by default)');
  if (!heldByAgents(operation.scope)) counted.push('agents cannot call it (no webhook scopes)');
  else if (operation.spends) counted.push('an agent\'s amount counts toward its spend policy (per payment and per day, in each currency)');
  else counted.push('nothing toward an agent\'s spend limits');
  return `Cost: ${counted.join('; ')}.`;
}

/** How an agent's call that waits for a person goes, for the operations that can ask (tools take approval_id, REST the Approval-Id header). */
function approval(operation: Operation): string | undefined {
  if (!asksApproval(operation)) return undefined;
  const when = operation.spends ? 'over that policy, or in Live if its person asked' : 'in Live, if an agent\'s person asked';
  return `Approval: ${when}, nothing is done until a person approves on the page approval_required names; then repeat with approval_id (REST: Approval-Id header).`;
}

/** The operation's description followed by the generated guidance. */
export function guidance(operation: Operation): string {
  return [operation.description, effect(operation), cost(operation), approval(operation), `Use it when ${operation.useWhen}`]
    .filter((part) => part !== undefined).join(' ');
}

/** The operation with its full description, as the REST document and the MCP tools show it. */
export function withGuidance(operation: Operation): Operation {
  return { ...operation, description: guidance(operation) };
}

