import { ownApproval } from '../../agents/approvals.ts';
import type { Principal } from '../../auth/principal.ts';
import { ApiError } from '../../core/errors.ts';
import { parseOrThrow } from '../../core/validation.ts';
import { toApprovalOut } from '../../resources/agent-connections/policy.ts';
import type { PaymentOut } from '../../resources/payments/schemas.ts';
import type { AppContext } from '../../verbs/context.ts';
import { Answer } from '../../verbs/operation.ts';
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import { visibleTo, type ToolDefinition, type ToolResult } from '../tools.ts';
import { CARD_META_KEY, cardFor, isObject, type CardSources } from './app.ts';
import type { Card } from './card.ts';

// A card tool's result with its card, for a client that shows MCP Apps (app.ts), and what a card
// needs besides the tool's answer, read for the caller as its own tools would read it: the
// payment of a link or session (through retrieve_payment, the caller's scopes and tenancy), and
// the caller's own approval request.

/** The tools by name, made once per list (a card is made on every card tool's call). */
const byName = new WeakMap<readonly ToolDefinition[], Map<string, ToolDefinition['operation']>>();

function operationsOf(all: readonly ToolDefinition[]): Map<string, ToolDefinition['operation']> {
  let operations = byName.get(all);
  if (operations === undefined) {
    operations = new Map(all.map(({ operation }) => [operation.name, operation]));
    byName.set(all, operations);
  }
  return operations;
}

export function cardSources(context: AppContext, principal: Principal, all: readonly ToolDefinition[]): CardSources {
  const operations = operationsOf(all);
  const mayCall = (tool: string) => {
    const operation = operations.get(tool);
    return operation !== undefined && visibleTo(operation, principal);
  };
  return {
    viewer: { business: principal.business.name, livemode: principal.livemode, mayCall },
    payment: async (id) => {
      const retrieve = operations.get('retrieve_payment');
      if (retrieve === undefined || !mayCall(retrieve.name)) return undefined;
      try {
        const answer = await retrieve.run({ ...context, principal, arguments: { id } }, parseOrThrow(retrieve.input, { id }) as never);
        return (answer instanceof Answer ? answer.body : answer) as PaymentOut;
      } catch (error) {
        if (error instanceof ApiError) return undefined;
        throw error;
      }
    },
    approval: async (id) => {
      const row = await ownApproval(context.db, principal, id);
      return row && toApprovalOut(row, context.clock.now());
    },
  };
}

/**
 * The tool's result with its card for the app (a refusal's too: an approval's card opens the
 * approval page). The call has been done by now, so a card that cannot be made leaves the result
 * as it is (told to `failed`, for the log), never turns it into a failure the agent would repeat.
 * input_required is the host's own way to the approval page: it has no card.
 */
export async function withCard(answer: ToolResult | InputRequiredResult, refused: ApiError | undefined, sources: CardSources, failed: (error: unknown) => void): Promise<ToolResult | InputRequiredResult> {
  if (!('content' in answer)) return answer;
  let card: Card | undefined;
  try {
    card = refused ? await cardFor({ error: refused }, sources) : isObject(answer.structuredContent) ? await cardFor({ body: answer.structuredContent }, sources) : undefined;
  } catch (error) {
    failed(error);
    return answer;
  }
  return card ? { ...answer, _meta: { ...(isObject(answer._meta) ? answer._meta : {}), [CARD_META_KEY]: card } } : answer;
}
