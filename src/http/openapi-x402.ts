import { MAX_TIMEOUT_SECONDS, TEST_NETWORK, X402_PATH, X402_VERSION } from '../resources/x402/offer.ts';
import { X402_REASONS } from '../resources/x402/payload.ts';

// The x402 exchange (docs/x402.md) in the OpenAPI document: the payment's address for programs
// that pay, outside /v1 and without a key. Its headers carry standard base64 of JSON, described here.

export const X402_TAG = 'Paying over HTTP 402 (x402)';
export const X402_TAG_DESCRIPTION = 'A buyer\'s program pays a payment link or checkout session with the x402 protocol, version 2: no key, no page.';

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const base64Json = (what: string) => ({ type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$', description: `Standard base64 (with + / =) of the JSON of ${what}.` });

const REASONS = Object.entries(X402_REASONS).map(([reason, text]) => `\`${reason}\`: ${text}`).join('\n- ');

function exchange(method: 'get' | 'post') {
  return {
    operationId: `pay_over_x402_${method}`,
    summary: method === 'get' ? 'Pay a payment over x402' : 'Pay a payment over x402 (POST)',
    description: 'Without `PAYMENT-SIGNATURE`: starts the payment as a buyer\'s start does (its price locked; the payer pages\' budgets of starts apply) ' +
      `and answers 402 with what it accepts in \`PAYMENT-REQUIRED\`: the \`exact\` scheme, the amount in USDC's six decimals, \`payTo\`, the token and its EIP-712 \`name\` and \`version\` in \`extra\`, \`maxTimeoutSeconds\` ${MAX_TIMEOUT_SECONDS}. ` +
      'Live offers one entry per network a healthy processor watches whose USDC takes EIP-3009 (`eip155:137`, `eip155:8453`, `eip155:1`), `payTo` the payment\'s deposit address; ' +
      `Test mode offers one network, \`${TEST_NETWORK}\`, settled by the Test simulation (nothing is sent to a chain). ` +
      'With `PAYMENT-SIGNATURE` (an EIP-3009 `transferWithAuthorization` for exactly that amount to `payTo`, signed by the payer): verified and taken once; ' +
      'Live: the payment processor runs it on the chain and submits it from its gas wallet, and the deposit pays the payment as any other. ' +
      '200 with the payment and `PAYMENT-RESPONSE` once paid; 202 with `settlement_pending` when it is not paid within `X402_SETTLE_WAIT_SECONDS` (25 s; ask the same address again: it waits again); ' +
      'or 402 with the reason and nothing charged. GET and POST behave alike (a paid retry repeats the first request); a body is ignored. ' +
      `Version 1 clients (\`X-PAYMENT\`) are refused with \`invalid_x402_version\`. Refusal reasons:\n- ${REASONS}`,
    tags: [X402_TAG],
    security: [],
    parameters: [
      { name: 'id', in: 'path', required: true, description: 'The payment link\'s or checkout session\'s `pay_` id.', schema: { type: 'string' } },
      { name: 'email', in: 'query', required: false, description: 'The buyer\'s email, for the customer and the receipt; taken at the first request (the start) only.', schema: { type: 'string', format: 'email' } },
      { name: 'PAYMENT-SIGNATURE', in: 'header', required: false, description: 'The paid retry: the x402 PaymentPayload.', schema: base64Json(`an x402 version ${X402_VERSION} PaymentPayload`) },
    ],
    responses: {
      200: {
        description: 'Paid (or already paid or held): the payment as its buyer may see it. `PAYMENT-RESPONSE` names the transaction when x402 paid it.',
        headers: { 'PAYMENT-RESPONSE': { description: 'The settlement: `success`, `transaction`, `network`, `payer`.', schema: base64Json('the SettleResponse') } },
        content: { 'application/json': { schema: { type: 'object', description: 'The payment object without the merchant\'s own fields (metadata, reference, fee, payout wallet, what the merchant received).' } } },
      },
      202: {
        description: 'Live: the authorization is on its way (submitted, or waiting for the processor) and the payment is not paid yet. Ask the same address again (it waits up to 25 s and answers 200 once paid), or follow the payment\'s `url`.',
        headers: {
          'PAYMENT-RESPONSE': { description: '`success: false`, `errorReason: "settlement_pending"`, `transaction` (the submitted transaction, empty until it is broadcast), `network`, `payer`.', schema: base64Json('the SettleResponse') },
          'Retry-After': { description: 'Seconds before asking again.', schema: { type: 'integer' } },
        },
        content: { 'application/json': { schema: { type: 'object', description: 'The payment as its buyer may see it, not paid yet.' } } },
      },
      402: {
        description: 'Payment required: what the payment accepts; after a refused retry, `error` and `PAYMENT-RESPONSE` say why and nothing was charged.',
        headers: {
          'PAYMENT-REQUIRED': { description: 'The PaymentRequired: `x402Version`, `error`, `resource`, `accepts`.', schema: base64Json('the PaymentRequired') },
          'PAYMENT-RESPONSE': { description: 'After a refused retry: `success: false`, `errorReason`, an empty `transaction`.', schema: base64Json('the SettleResponse') },
        },
        content: { 'application/json': { schema: ERROR_REF } },
      },
      403: { description: 'The account cannot take payments (suspended or read only).', content: { 'application/json': { schema: ERROR_REF } } },
      404: { description: 'No payment has this id.', content: { 'application/json': { schema: ERROR_REF } } },
      409: { description: '`invalid_state`: the payment is expired or failed. `payments_unavailable`: Live, no network that takes EIP-3009 USDC is watched by a healthy payment processor now.', content: { 'application/json': { schema: ERROR_REF } } },
      429: { description: 'This address or the business passed its payment starts a minute.', content: { 'application/json': { schema: ERROR_REF } } },
    },
  };
}

/** The path object of the x402 address. */
export function x402Paths(): Record<string, Record<string, unknown>> {
  return { [`${X402_PATH}/{id}`]: { get: exchange('get'), post: exchange('post') } };
}
