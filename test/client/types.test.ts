import { expectTypeOf, it } from 'vitest';
import type { CallOptions, ErrorCode, KnownErrorCode, ListItem, ListOperationId, OperationInput, PaymentLink, WebhookCustomer, WebhookOrder, WebhookPayment } from '../../client/src/index.ts';
import type { ErrorCode as ServiceErrorCode } from '../../src/core/errors.ts';
import type { CustomerSnapshot, OrderSnapshot, PaymentSnapshot } from '../../src/events/snapshots.ts';

// What the client's types promise, checked by `npm run typecheck` (these tests do nothing when
// run): read off the generated types they match the service, and the webhook types, written from
// the spec, match the service's own snapshot builders.

it('types every field the service sends in data.payment, data.order and data.customer, and no other', () => {
  expectTypeOf<PaymentSnapshot>().toExtend<WebhookPayment>();
  expectTypeOf<keyof WebhookPayment>().toEqualTypeOf<keyof PaymentSnapshot>();
  expectTypeOf<OrderSnapshot>().toExtend<WebhookOrder>();
  expectTypeOf<keyof WebhookOrder>().toEqualTypeOf<keyof OrderSnapshot>();
  expectTypeOf<CustomerSnapshot>().toExtend<WebhookCustomer>();
  expectTypeOf<keyof WebhookCustomer>().toEqualTypeOf<keyof CustomerSnapshot>();
});

it('knows the service error codes, and takes codes added later', () => {
  expectTypeOf<KnownErrorCode>().toEqualTypeOf<ServiceErrorCode>();
  expectTypeOf<'a_code_from_the_future'>().toExtend<ErrorCode>();
});

it('pages only list operations, and takes an Idempotency-Key only where the document has the header', () => {
  expectTypeOf<ListOperationId>().toEqualTypeOf<'list_payment_links' | 'list_checkouts' | 'list_customers' | 'list_webhook_endpoints' | 'list_payments' | 'list_orders' | 'list_events' | 'list_endpoint_deliveries'>();
  expectTypeOf<ListItem<'list_payment_links'>>().toEqualTypeOf<PaymentLink>();
  expectTypeOf<CallOptions<'create_checkout_session'>>().toHaveProperty('idempotencyKey');
  expectTypeOf<keyof CallOptions<'create_payment_link'>>().toEqualTypeOf<'signal' | 'approvalId'>();
  expectTypeOf<OperationInput<'retrieve_order'>>().toEqualTypeOf<{ id: string }>();
});
