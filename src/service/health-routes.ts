import { z } from 'zod';
import { noQuerySchema } from './request-schemas.js';
import { healthResponseSchema, readyResponseSchema } from './response-schemas.js';
import { defineRoute } from './service-route.js';
import type { ServiceRuntime } from './service-runtime.js';

/** A store that does not answer this quickly is not ready. */
const storeProbeTimeoutMs = 2_000;

export const healthRoute = defineRoute({
  method: 'GET',
  path: '/healthz',
  operationId: 'health',
  summary: 'Liveness: the process answers.',
  tag: 'operations',
  authenticated: false,
  query: noQuerySchema,
  responses: [{ status: 200, description: 'Alive', schema: healthResponseSchema, example: { status: 'ok' } }],
  errors: [],
  async handle() {
    return { status: 200, body: { status: 'ok' } };
  },
});

export const readyRoute = defineRoute({
  method: 'GET',
  path: '/readyz',
  operationId: 'ready',
  summary:
    'Readiness: the pin store answers a query and the service is not draining. Each server session and the shared cache are reported; a server that is down does not make the service unready (its turns still answer, with fates).',
  tag: 'operations',
  authenticated: false,
  query: noQuerySchema,
  responses: [
    {
      status: 200,
      description: 'Ready',
      schema: readyResponseSchema,
      example: {
        status: 'ready',
        checks: { store: 'ok', draining: false, servers: { gitnexus: 'connected' } },
      },
    },
    {
      status: 503,
      description: 'Not ready (draining, or the store does not answer)',
      schema: readyResponseSchema,
      example: {
        status: 'not-ready',
        checks: { store: 'ok', draining: true, servers: { gitnexus: 'connected' } },
      },
    },
  ],
  errors: [],
  async handle(_request, runtime) {
    const checks = await readinessChecks(runtime);
    const ready = checks.store === 'ok' && !checks.draining;
    return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not-ready', checks } };
  },
});

/** GET /v1/openapi.json: the contract, generated from the schemas that validate the requests. */
export const openApiRoute = defineRoute({
  method: 'GET',
  path: '/v1/openapi.json',
  operationId: 'openApiDocument',
  summary: 'This OpenAPI 3.1 document.',
  tag: 'operations',
  authenticated: false,
  query: noQuerySchema,
  responses: [{ status: 200, description: 'The document', schema: z.record(z.string(), z.unknown()) }],
  errors: [],
  async handle(_request, runtime) {
    return { status: 200, body: runtime.state.openApiDocument() };
  },
});

// --- Internal helpers ---

async function readinessChecks(runtime: ServiceRuntime) {
  const servers = Object.fromEntries(
    runtime.servers.statuses().map((status) => [status.server, status.state]),
  );
  return {
    store: await probeStore(runtime),
    ...(runtime.shared && { sharedCache: runtime.shared.connected ? 'ok' : 'not connected' }),
    draining: runtime.state.draining,
    servers,
  };
}

/** A real query on the store (a scope no pin has), within a short deadline. */
async function probeStore(runtime: ServiceRuntime): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${storeProbeTimeoutMs} ms`), storeProbeTimeoutMs);
  });
  try {
    return await Promise.race([
      runtime.store.list({ pipelineId: 'mcp-context-readiness-probe' }).then(() => 'ok'),
      timeout,
    ]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}
