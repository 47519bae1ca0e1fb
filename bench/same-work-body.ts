// The payment.started body the same-work baseline stores, built by PostgreSQL inside the start's
// one statement: the envelope of src/events/record.ts with the snapshots of src/events/snapshots.ts,
// key for key and in their order. Written as compact JSON text (as JSON.stringify writes it), not
// by json_build_object, whose text puts spaces around every colon: the same bytes as ours, so
// the same work to store. Reads `s` (the started payment), `o` (its order), `c` (its customer,
// outer-joined) and `f` (facts of the order's payments); `:event_id` and `:base_url` are parameters.

/** A value: an SQL expression (written through to_json), an object, or an array of rows. */
type Shape = string | ObjectShape | ArrayShape;
interface ObjectShape { fields: Record<string, Shape>; nullWhen?: string }
interface ArrayShape { from: string; orderBy: string; element: Shape }

const object = (fields: Record<string, Shape>, nullWhen?: string): ObjectShape => ({ fields, nullWhen });
const array = (from: string, orderBy: string, element: Shape): ArrayShape => ({ from, orderBy, element });

/** The SQL text expression that writes a shape as compact JSON. */
function jsonText(shape: Shape): string {
  if (typeof shape === 'string') return `coalesce(to_json(${shape})::text, 'null')`;
  if ('from' in shape) {
    return `(SELECT '[' || coalesce(string_agg(${jsonText(shape.element)}, ',' ORDER BY ${shape.orderBy}), '') || ']' FROM ${shape.from})`;
  }
  const members = Object.entries(shape.fields).map(([key, value], index) => `'${index === 0 ? '{' : ','}${JSON.stringify(key)}:' || ${jsonText(value)}`);
  const text = `(${members.join(' || ')} || '}')`;
  return shape.nullWhen ? `(CASE WHEN ${shape.nullWhen} THEN 'null' ELSE ${text} END)` : text;
}

/** formatAmount: minor units as "42.50". */
const amount = (minor: string) => `((${minor})::numeric / 100)::numeric(20, 2)::text`;
/** A time in milliseconds, as the snapshots give it. */
const ms = (time: string) => `floor(extract(epoch FROM ${time}) * 1000)::bigint`;
const mode = (livemode: string) => `(CASE WHEN ${livemode} THEN 'live' ELSE 'test' END)`;
/** A stored address (jsonb) as its snapshot. */
const address = (stored: string) => object({
  name: `${stored}->>'name'`, line1: `${stored}->>'line1'`, line2: `${stored}->>'line2'`, city: `${stored}->>'city'`,
  region: `${stored}->>'region'`, postalCode: `${stored}->>'postal_code'`, country: `${stored}->>'country'`,
}, `${stored} IS NULL`);
const link = `s.source = 'payment_link'`;

const payment = object({
  id: 's.id', mode: mode('s.livemode'), source: 's.source', checkoutId: 's.checkout_id', planLabel: 's.plan_label',
  description: 's.description', reference: 's.reference', customerEmail: 's.customer_email', amount: amount('s.amount_minor'),
  currency: 's.currency', status: 's.status', provider: 's.provider', providerName: 's.provider_name', method: 's.method',
  network: 's.network', depositAddress: 's.deposit_address', payoutWallet: 's.payout_wallet', feeBps: 'coalesce(s.fee_bps, 0)',
  valueCoin: 's.value_coin::text', merchantReceived: 's.merchant_received::text', coin: 's.coin', holdReason: 's.hold_reason',
  holdAcceptable: 's.hold_acceptable', txidIn: 's.txid_in', txidOut: 's.txid_out', metadata: 's.metadata',
  customerName: `(CASE WHEN ${link} THEN s.customer_name END)`, memo: `(CASE WHEN ${link} THEN s.memo END)`,
  trackingUrl: `(CASE WHEN ${link} THEN :base_url::text || '/track/' || s.tracking_token END)`, canceledAt: ms('s.canceled_at'),
  successUrl: 's.success_url', createdAt: ms('s.created_at'), paidAt: ms('s.paid_at'), expiresAt: ms('s.expires_at'),
  url: `:base_url::text || '/pay/' || s.id`, orderId: 's.order_id',
});

const firstItem = `o.items->0`;
const order = object({
  id: 'o.id', mode: mode('o.livemode'), number: 'o.number',
  displayNumber: `coalesce(nullif(o.store->>'order_number', ''), o.number::text)`, source: 'o.source', checkoutId: 'o.checkout_id',
  store: object({
    platform: `o.store->>'platform'`, id: `o.store->>'id'`, name: `o.store->>'name'`, url: `o.store->>'url'`, orderId: `o.store->>'order_id'`,
    orderNumber: `o.store->>'order_number'`, orderUrl: `o.store->>'order_url'`, customerId: `o.store->>'customer_id'`,
  }, 'o.store IS NULL'),
  status: 'o.status', needsReview: `(o.status = 'held')`, fulfillment: 'o.fulfillment', fulfilledAt: ms('o.fulfilled_at'),
  customer: object({ id: 'c.id', email: 'c.email', name: 'c.name', erased: 'c.erased' }, 'c.id IS NULL'),
  summary: `coalesce(${firstItem}->>'name' || coalesce(' (' || nullif(${firstItem}->>'variant', '') || ')', '')
    || (CASE WHEN jsonb_array_length(o.items) > 1 THEN ' and ' || (jsonb_array_length(o.items) - 1) || ' more' ELSE '' END), '')`,
  lineCount: 'jsonb_array_length(o.items)',
  unitCount: `(SELECT coalesce(sum((i->>'quantity')::int), 0)::int FROM jsonb_array_elements(o.items) i)`,
  currency: 'o.currency', subtotal: amount('o.subtotal_minor'), discount: amount('o.discount_minor'), discountCode: 'o.discount_code',
  shipping: amount('o.shipping_minor'), shippingMethod: 'o.shipping_method', tax: amount('o.tax_minor'), total: amount('o.total_minor'),
  amountPaid: amount('f.paid_minor'), received: 'f.received::numeric(30, 6)::text', shipTo: address('o.ship_to'), billTo: address('o.bill_to'),
  reference: 'f.reference', paymentId: 'f.deciding', attemptCount: 'f.attempts', createdAt: ms('o.created_at'),
  updatedAt: ms('o.updated_at'), paidAt: ms('o.paid_at'),
  items: array('jsonb_array_elements(o.items) WITH ORDINALITY AS line(item, n) WHERE n <= 50', 'n', object({
    name: `item->>'name'`, variant: `item->>'variant'`, sku: `item->>'sku'`, quantity: `item->'quantity'`,
    unitAmount: `(CASE WHEN jsonb_typeof(item->'unit_amount_minor') = 'number' THEN ${amount(`item->>'unit_amount_minor'`)} END)`,
    amount: amount(`item->>'amount_minor'`),
  })),
});

const customerAddress = 'coalesce(c.shipping_address, c.billing_address)';
const customer = object({
  id: 'c.id', mode: mode('c.livemode'), email: 'c.email', name: 'c.name', phone: 'c.phone',
  location: `nullif(concat_ws(', ', nullif(${customerAddress}->>'city', ''), nullif(${customerAddress}->>'region', ''), nullif(${customerAddress}->>'country', '')), '')`,
  shipTo: address('c.shipping_address'), billTo: address('c.billing_address'),
  storeAccounts: array('jsonb_array_elements(c.store_accounts) WITH ORDINALITY AS account(entry, n)', 'n', object({
    platform: `entry->>'platform'`, storeId: `entry->>'store_id'`, storeName: `entry->>'store_name'`, customerId: `entry->>'customer_id'`,
  })),
  firstSeenAt: ms('c.created_at'), erased: 'c.erased',
}, 'c.id IS NULL');

/** The SQL expression of the stored body of the payment.started event `:event_id`. */
export const STARTED_EVENT_BODY = jsonText(object({
  id: ':event_id::text', type: `'payment.started'::text`, created: 'floor(extract(epoch FROM now()))::bigint', livemode: 's.livemode',
  data: object({ payment, order, customer }),
}));

/**
 * The facts of the order's payments the body reads (deriveOrder's): every payment of the order
 * as it was before this statement, which a start leaves as it was in all these columns.
 */
export const ORDER_FACTS = `(SELECT count(*)::int AS attempts,
    coalesce(sum(CASE x.status WHEN 'paid' THEN x.amount_minor WHEN 'held' THEN coalesce(x.received_minor, 0) ELSE 0 END), 0) AS paid_minor,
    sum(coalesce(x.forwarded_net, x.merchant_received)) AS received,
    (array_agg(x.reference ORDER BY x.created_at DESC, x.id DESC))[1] AS reference,
    -- The first paid, else the first held, else the latest.
    (array_agg(x.id ORDER BY x.status = 'paid' DESC, x.status = 'held' DESC,
      CASE WHEN x.status IN ('paid', 'held') THEN x.created_at END, x.created_at DESC, x.id DESC))[1] AS deciding
  FROM payments x WHERE x.order_id = s.order_id)`;
