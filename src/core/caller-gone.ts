import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A signal that aborts when the caller goes away before its answer was sent (a long poll's
 * client disconnecting, an MCP client cancelling its call by closing the request).
 */
export function callerGone(request: IncomingMessage, response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (request.socket?.destroyed) controller.abort();
  else response.once('close', () => { if (!response.writableFinished) controller.abort(); });
  return controller.signal;
}
