import { z } from 'zod';
import { jsonSchema, type JsonSchema } from '../verbs/json-schema.ts';
import { AddressSnapshot, CustomerSnapshot, OrderSnapshot, PaymentEvent, PaymentSnapshot, PingEvent } from '../events/payloads.ts';
import { CardProviderOut, CheckoutSessionOut, StartedCheckoutSessionOut } from '../resources/checkout-sessions/schemas.ts';
import { CheckoutList, CheckoutOut, PlanOut, PlanPriceOut, RoutingOut, routingField } from '../resources/checkouts/schemas.ts';
import { CredentialOut } from '../resources/credential/operations.ts';
import { CustomerList, CustomerOut, StoreAccountOut } from '../resources/customers/schemas.ts';
import { EventList } from '../resources/events/schemas.ts';
import { OrderInput } from '../resources/orders/input.ts';
import {
  OrderCustomerOut, OrderItemOut, OrderList, OrderOut, OrderStoreOut, OrderTimelineEntryOut,
} from '../resources/orders/schemas.ts';
import { PaymentLinkList, PaymentLinkOut } from '../resources/payment-links/schemas.ts';
import { PaymentList, PaymentOut } from '../resources/payments/schemas.ts';
import { TransferList, TransferOut } from '../resources/ledger/schemas.ts';
import { addressField, addressOut } from '../resources/shared/addresses.ts';
import { collectField } from '../resources/shared/fields.ts';
import {
  CreatedWebhookEndpointOut, DeletedWebhookEndpointOut, WebhookEndpointList, WebhookEndpointOut,
} from '../resources/webhook-endpoints/schemas.ts';
import { AttemptOut, DeliveryDetailOut, DeliveryList, DeliveryOut } from '../webhooks/log/api-schemas.ts';

// The OpenAPI document's named schemas. Names are given here, by the zod schema object, and
// never registered in zod's global registry: the MCP tools convert the same schemas and must
// keep them inline (a global `id` would make zod extract them into $defs there too).

/** What each API object, list envelope and webhook payload is called in components.schemas. */
const NAMED: ReadonlyArray<readonly [z.ZodType, string]> = [
  [PaymentLinkOut, 'PaymentLink'], [PaymentLinkList, 'PaymentLinkList'],
  [CheckoutOut, 'Checkout'], [CheckoutList, 'CheckoutList'], [PlanOut, 'Plan'], [PlanPriceOut, 'PlanPrice'], [RoutingOut, 'Routing'],
  [CustomerOut, 'Customer'], [CustomerList, 'CustomerList'], [StoreAccountOut, 'StoreAccount'], [addressOut, 'Address'],
  [WebhookEndpointOut, 'WebhookEndpoint'], [CreatedWebhookEndpointOut, 'WebhookEndpointWithSecret'],
  [DeletedWebhookEndpointOut, 'DeletedWebhookEndpoint'], [WebhookEndpointList, 'WebhookEndpointList'],
  [CheckoutSessionOut, 'CheckoutSession'], [StartedCheckoutSessionOut, 'StartedCheckoutSession'], [CardProviderOut, 'CardProvider'],
  [PaymentOut, 'Payment'], [PaymentList, 'PaymentList'], [TransferOut, 'Transfer'], [TransferList, 'TransferList'],
  [OrderOut, 'Order'], [OrderList, 'OrderList'], [OrderItemOut, 'OrderItem'], [OrderTimelineEntryOut, 'OrderTimelineEntry'],
  [OrderStoreOut, 'OrderStore'], [OrderCustomerOut, 'OrderCustomer'],
  [CredentialOut, 'Credential'],
  [EventList, 'EventList'],
  [DeliveryOut, 'WebhookDelivery'], [DeliveryDetailOut, 'WebhookDeliveryWithAttempts'], [AttemptOut, 'WebhookDeliveryAttempt'], [DeliveryList, 'WebhookDeliveryList'],
  // Request parts used by several request bodies.
  [OrderInput, 'StoreOrderInput'], [routingField, 'RoutingInput'], [collectField, 'CollectInput'],
  // Webhook payloads (spec 2.5 to 2.8).
  [PaymentEvent, 'PaymentEvent'], [PingEvent, 'PingEvent'], [PaymentSnapshot, 'PaymentSnapshot'], [OrderSnapshot, 'OrderSnapshot'],
  [CustomerSnapshot, 'CustomerSnapshot'], [AddressSnapshot, 'AddressSnapshot'],
];

/**
 * Request parts made anew for each field (an address's errors name its field), so they have no
 * one object to be named by: a request schema equal to one of these is that named schema.
 */
const NAMED_BY_SHAPE: ReadonlyArray<readonly [z.ZodType, string]> = [[addressField('address'), 'AddressInput']];

export const componentRef = (name: string) => `#/components/schemas/${name}`;

/** Deletes `additionalProperties: false` everywhere: clients must accept response fields added later (spec 9). */
function openObjects(json: unknown): void {
  if (Array.isArray(json)) return json.forEach(openObjects);
  if (typeof json !== 'object' || json === null) return;
  const record = json as Record<string, unknown>;
  if (record.additionalProperties === false) delete record.additionalProperties;
  Object.values(record).forEach(openObjects);
}

/** The named schemas of the document, converted once, and conversions that refer to them. */
export class SchemaBook {
  readonly #names = new Map<z.ZodType, string>(NAMED);
  readonly #components: Record<string, JsonSchema> = {};
  readonly #byShape: Array<{ json: string; name: string }> = [];

  constructor() {
    for (const [schema, name] of NAMED) {
      const io = name.endsWith('Input') ? 'input' : 'output';
      this.#components[name] = this.#convert(schema, io, schema);
    }
    for (const [schema, name] of NAMED_BY_SHAPE) {
      const json = this.#convert(schema, 'input', schema);
      this.#components[name] = json;
      const { description: _description, ...shape } = json;
      this.#byShape.push({ json: JSON.stringify(shape), name });
    }
  }

  /** The component name of a schema, when it has one. */
  nameOf(schema: z.ZodType): string | undefined {
    return this.#names.get(schema);
  }

  /** Every named schema (for components.schemas), plus any added with `add`. */
  get components(): Readonly<Record<string, JsonSchema>> {
    return this.#components;
  }

  /** Adds a schema of the document's own (a request body, the error shape) under `name`. */
  add(name: string, json: JsonSchema): { $ref: string } {
    if (name in this.#components) throw new Error(`Two schemas named ${name} in the OpenAPI document.`);
    this.#components[name] = json;
    return { $ref: componentRef(name) };
  }

  /** A schema where it is used: a $ref when it is named, else inline with $refs to the named schemas inside it. */
  use(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const name = this.#names.get(schema);
    return name ? { $ref: componentRef(name) } : this.#convert(schema, io, schema);
  }

  /** Converts `schema`, every named schema inside it (not `root` itself) becoming a $ref, with any description of its own kept beside it. */
  #convert(schema: z.ZodType, io: 'input' | 'output', root: z.ZodType): JsonSchema {
    const names = this.#names;
    const json = jsonSchema(schema, io, ({ zodSchema, jsonSchema: converted }) => {
      if ((zodSchema as z.core.$ZodType) === root) return;
      const named = namedAncestor(names, zodSchema as z.core.$ZodType);
      if (named) replaceWithRef(converted as JsonSchema, named.name, z.globalRegistry.get(named.schema)?.description);
    });
    if (io === 'output') openObjects(json);
    else this.#referShapes(json);
    return json;
  }

  /** Replaces each sub-schema equal to a schema named by shape with its $ref. */
  #referShapes(json: JsonSchema): void {
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== 'object' || node === null) return;
      const record = node as JsonSchema;
      const { description, ...rest } = record;
      const match = this.#byShape.find((shape) => shape.json === JSON.stringify(rest));
      if (match && Object.keys(rest).length > 0) {
        replaceWithRef(record, match.name, this.#components[match.name]?.description);
        return;
      }
      Object.values(record).forEach(visit);
    };
    Object.values(json).forEach(visit);
  }
}

/** The named schema `schema` is, or was cloned from (`.describe()` and `.meta()` clone). */
function namedAncestor(names: ReadonlyMap<z.ZodType, string>, schema: z.core.$ZodType): { name: string; schema: z.ZodType } | undefined {
  for (let current: z.core.$ZodType | undefined = schema; current; current = current._zod.parent) {
    const name = names.get(current as z.ZodType);
    if (name) return { name, schema: current as z.ZodType };
  }
  return undefined;
}

/**
 * Turns a converted schema into a $ref in place (zod shares the object with every use), keeping
 * a description given at the use (one that is not the named schema's own).
 */
function replaceWithRef(json: JsonSchema, name: string, ownDescription: unknown): void {
  const { description } = json;
  for (const key of Object.keys(json)) delete json[key];
  json.$ref = componentRef(name);
  if (typeof description === 'string' && description !== ownDescription) json.description = description;
}
