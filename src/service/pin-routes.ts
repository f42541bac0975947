import { type Attachment, ContextError, type Scope } from '../index.js';
import { pinAddRequestSchema, pinUpdateRequestSchema, scopeQuerySchema } from './request-schemas.js';
import { pinListResponseSchema, pinRemovedResponseSchema, pinResponseSchema } from './response-schemas.js';
import { defineRoute } from './service-route.js';
import type { ServiceRuntime } from './service-runtime.js';
import type { Tenant } from './service-tenants.js';
import { attachmentOptionsOf, toTarget } from './to-target.js';

const examplePin = {
  id: 'p-1',
  addedAt: '2026-01-01T00:00:00.000Z',
  version: '1',
  scope: { pipelineId: 'support' },
  server: 'gitnexus',
  uri: 'gitnexus://repos',
};

/** GET /v1/pins: the pins of one scope, oldest first. */
export const listPinsRoute = defineRoute({
  method: 'GET',
  path: '/v1/pins',
  operationId: 'listPins',
  summary: 'The pins of one scope (`pipelineId` or `conversationId`), oldest first.',
  tag: 'pins',
  authenticated: true,
  query: scopeQuerySchema,
  responses: [
    { status: 200, description: 'The pins', schema: pinListResponseSchema, example: { pins: [examplePin] } },
  ],
  errors: [400, 401, 403],
  async handle({ tenant, query }, runtime) {
    const pins = await runtime.store.list(storeScope(tenant, query));
    return { status: 200, body: { pins: pins.map((pin) => clientPin(pin, tenant)) } };
  },
});

/** POST /v1/pins: adds a pin; the same target in the same scope updates that pin in place. */
export const addPinRoute = defineRoute({
  method: 'POST',
  path: '/v1/pins',
  operationId: 'addPin',
  summary: 'Pins a resource (or template) to a scope; pinning the same target again updates that pin.',
  tag: 'pins',
  authenticated: true,
  body: pinAddRequestSchema,
  responses: [
    { status: 200, description: 'The pin', schema: pinResponseSchema, example: { pin: examplePin } },
  ],
  errors: [400, 401, 403, 413, 415],
  async handle({ tenant, body }, runtime) {
    const scope = storeScope(tenant, body.scope);
    const pin = await runtime.store.pin({ scope, ...toTarget(body), ...attachmentOptionsOf(body) });
    return { status: 200, body: { pin: clientPin(pin, tenant) } };
  },
});

/** PATCH /v1/pins/{id}: changes a pin's options in its scope. */
export const updatePinRoute = defineRoute({
  method: 'PATCH',
  path: '/v1/pins/{id}',
  operationId: 'updatePin',
  summary:
    "Changes a pin's options (`null` removes `priority` or `maxTokens`); the scope names where it lives.",
  tag: 'pins',
  authenticated: true,
  body: pinUpdateRequestSchema,
  responses: [
    {
      status: 200,
      description: 'The pin as it is now',
      schema: pinResponseSchema,
      example: { pin: { ...examplePin, maxTokens: 500 } },
    },
  ],
  errors: [400, 401, 403, 404, 413, 415],
  async handle({ tenant, body, params }, runtime) {
    const scope = storeScope(tenant, body.scope);
    const existing = await findPin(runtime, scope, params.id as string);
    const { scope: _scope, ...changes } = body;
    const merged = { ...existing, ...changes };
    const pin = await runtime.store.pin({ scope, ...toTarget(existing), ...attachmentOptionsOf(merged) });
    return { status: 200, body: { pin: clientPin(pin, tenant) } };
  },
});

/** DELETE /v1/pins/{id}: removes a pin of the named scope. */
export const removePinRoute = defineRoute({
  method: 'DELETE',
  path: '/v1/pins/{id}',
  operationId: 'removePin',
  summary: 'Removes a pin; the scope (`pipelineId` or `conversationId`) names where it lives.',
  tag: 'pins',
  authenticated: true,
  query: scopeQuerySchema,
  responses: [
    {
      status: 200,
      description: 'Removed',
      schema: pinRemovedResponseSchema,
      example: { removed: true, id: 'p-1' },
    },
  ],
  errors: [400, 401, 403, 404],
  async handle({ tenant, query, params }, runtime) {
    const id = params.id as string;
    // Looked up in the scope first: a key may remove only the pins of scopes it may use.
    await findPin(runtime, storeScope(tenant, query), id);
    await runtime.store.unpin(id);
    return { status: 200, body: { removed: true, id } };
  },
});

// --- Internal helpers ---

/** The scope as stored, after the tenant's check: a pipeline it may use, a conversation in its namespace. */
function storeScope(tenant: Tenant, scope: { pipelineId?: string; conversationId?: string }): Scope {
  if (scope.pipelineId !== undefined) {
    tenant.requirePipeline(scope.pipelineId);
    return { pipelineId: scope.pipelineId };
  }
  return { conversationId: tenant.conversationKey(scope.conversationId as string) };
}

async function findPin(runtime: ServiceRuntime, scope: Scope, id: string): Promise<Attachment> {
  const pin = (await runtime.store.list(scope)).find((candidate) => candidate.id === id);
  if (pin) return pin;
  throw new ContextError('PIN_NOT_FOUND', `no pin "${id}" in this scope`, { field: 'id', value: id });
}

/** A stored pin as the client names it: its conversation without the tenant's prefix. */
function clientPin(pin: Attachment, tenant: Tenant): Attachment {
  if (!('conversationId' in pin.scope)) return pin;
  const conversationId = tenant.conversationOf(pin.scope.conversationId) ?? pin.scope.conversationId;
  return { ...pin, scope: { conversationId } };
}
