import type { PolicyBoundServers } from '../servers.js';
import {
  completeRequestSchema,
  listingQuerySchema,
  promptRequestSchema,
  readRequestSchema,
  serversQuerySchema,
} from './request-schemas.js';
import {
  completionResponseSchema,
  promptResponseSchema,
  promptsResponseSchema,
  readResponseSchema,
  resourcesResponseSchema,
  serversResponseSchema,
  templatesResponseSchema,
} from './response-schemas.js';
import { defineRoute } from './service-route.js';
import type { ServiceRuntime } from './service-runtime.js';
import type { Tenant } from './service-tenants.js';

/** Every listing, read, prompt and completion goes through the pipeline's binding: the one authorization path. */
const listingErrors = [400, 401, 403, 404, 502, 504];

/** GET /v1/servers: the servers this pipeline may list, with their connection status. */
export const listServersRoute = defineRoute({
  method: 'GET',
  path: '/v1/servers',
  operationId: 'listServers',
  summary: 'The MCP servers this pipeline is bound to, each with its connection status.',
  tag: 'servers',
  authenticated: true,
  query: serversQuerySchema,
  responses: [
    {
      status: 200,
      description: 'Their statuses',
      schema: serversResponseSchema,
      example: {
        servers: [
          {
            server: 'gitnexus',
            configuredTransport: 'streamable-http',
            transport: 'streamable-http',
            state: 'connected',
            reconnectAttempts: 0,
            consecutiveFailures: 0,
          },
        ],
      },
    },
  ],
  errors: [400, 401, 403, 404],
  async handle({ tenant, query }, runtime) {
    const bound = boundView(runtime, tenant, query);
    return { status: 200, body: { servers: bound.statuses() } };
  },
});

export const listResourcesRoute = defineRoute({
  method: 'GET',
  path: '/v1/servers/{server}/resources',
  operationId: 'listResources',
  summary: "A server's resources this pipeline may see (one page, or `all=true`).",
  tag: 'servers',
  authenticated: true,
  query: listingQuerySchema,
  responses: [
    {
      status: 200,
      description: 'The resources',
      schema: resourcesResponseSchema,
      example: {
        resources: [{ uri: 'gitnexus://repos', name: 'All Indexed Repositories', mimeType: 'text/yaml' }],
      },
    },
  ],
  errors: listingErrors,
  async handle({ tenant, query, params, signal }, runtime) {
    const bound = boundView(runtime, tenant, query);
    const result = await bound.listResources(params.server as string, listOptions(query, signal));
    return { status: 200, body: page('resources', result.resources, result.nextCursor) };
  },
});

export const listTemplatesRoute = defineRoute({
  method: 'GET',
  path: '/v1/servers/{server}/templates',
  operationId: 'listTemplates',
  summary: "A server's resource templates this pipeline may see.",
  tag: 'servers',
  authenticated: true,
  query: listingQuerySchema,
  responses: [
    {
      status: 200,
      description: 'The templates',
      schema: templatesResponseSchema,
      example: {
        resourceTemplates: [{ uriTemplate: 'gitnexus://repo/{name}/context', name: 'Repository Context' }],
      },
    },
  ],
  errors: listingErrors,
  async handle({ tenant, query, params, signal }, runtime) {
    const bound = boundView(runtime, tenant, query);
    const result = await bound.listResourceTemplates(params.server as string, listOptions(query, signal));
    return { status: 200, body: page('resourceTemplates', result.resourceTemplates, result.nextCursor) };
  },
});

export const readResourceRoute = defineRoute({
  method: 'POST',
  path: '/v1/servers/{server}/read',
  operationId: 'readResource',
  summary: 'Reads one resource through the binding (its byte cap and media types applied).',
  tag: 'servers',
  authenticated: true,
  body: readRequestSchema,
  responses: [
    {
      status: 200,
      description: 'The read result',
      schema: readResponseSchema,
      example: { contents: [{ uri: 'gitnexus://repos', mimeType: 'text/yaml', text: 'repositories: …' }] },
    },
  ],
  errors: [...listingErrors, 413, 415],
  async handle({ tenant, body, params, signal }, runtime) {
    const bound = boundView(runtime, tenant, body);
    const result = await bound.readResource(params.server as string, body.uri, callOptions(body, signal));
    return { status: 200, body: result };
  },
});

export const listPromptsRoute = defineRoute({
  method: 'GET',
  path: '/v1/servers/{server}/prompts',
  operationId: 'listPrompts',
  summary: "A server's prompts this pipeline may use.",
  tag: 'prompts',
  authenticated: true,
  query: listingQuerySchema,
  responses: [
    {
      status: 200,
      description: 'The prompts',
      schema: promptsResponseSchema,
      example: { prompts: [{ name: 'detect_impact', arguments: [{ name: 'scope', required: false }] }] },
    },
  ],
  errors: listingErrors,
  async handle({ tenant, query, params, signal }, runtime) {
    const bound = boundView(runtime, tenant, query);
    const result = await bound.listPrompts(params.server as string, listOptions(query, signal));
    return { status: 200, body: page('prompts', result.prompts, result.nextCursor) };
  },
});

export const getPromptRoute = defineRoute({
  method: 'POST',
  path: '/v1/servers/{server}/prompts/{prompt}',
  operationId: 'getPrompt',
  summary: "A prompt's messages for these arguments (required arguments checked before the server is asked).",
  tag: 'prompts',
  authenticated: true,
  body: promptRequestSchema,
  responses: [
    {
      status: 200,
      description: 'The prompt',
      schema: promptResponseSchema,
      example: {
        description: 'Analyze the impact of your current changes',
        messages: [{ role: 'user', content: { type: 'text', text: 'Analyze the impact…' } }],
      },
    },
  ],
  errors: [...listingErrors, 413, 415],
  async handle({ tenant, body, params, signal }, runtime) {
    const bound = boundView(runtime, tenant, body);
    const result = await bound.getPrompt(
      params.server as string,
      params.prompt as string,
      body.arguments ?? {},
      callOptions(body, signal),
    );
    return { status: 200, body: result };
  },
});

export const completeRoute = defineRoute({
  method: 'POST',
  path: '/v1/servers/{server}/complete',
  operationId: 'complete',
  summary: "Completion of a template's or prompt's argument (MCP completion/complete).",
  tag: 'prompts',
  authenticated: true,
  body: completeRequestSchema,
  responses: [
    {
      status: 200,
      description: 'Candidate values',
      schema: completionResponseSchema,
      example: { values: ['acme-shop'], total: 1, hasMore: false },
    },
  ],
  errors: [...listingErrors, 413, 415, 422],
  async handle({ tenant, body, params, signal }, runtime) {
    const bound = boundView(runtime, tenant, body);
    const result = await bound.complete(
      params.server as string,
      {
        ...(body.template !== undefined && { template: body.template }),
        ...(body.prompt !== undefined && { prompt: body.prompt }),
        argument: body.argument,
        ...(body.value !== undefined && { value: body.value }),
        ...(body.context !== undefined && { context: body.context }),
      },
      callOptions(body, signal),
    );
    return { status: 200, body: result };
  },
});

// --- Internal helpers ---

/**
 * The pipeline's (and agent's) policy-bound view, once the tenant may use them and the policy
 * knows them (an unknown pipeline is 404, not a view that denies everything).
 */
function boundView(
  runtime: ServiceRuntime,
  tenant: Tenant,
  principal: { pipelineId: string; agentId?: string | undefined },
): PolicyBoundServers {
  tenant.requirePipeline(principal.pipelineId);
  tenant.requireAgent(principal.agentId);
  const view = {
    pipelineId: principal.pipelineId,
    ...(principal.agentId !== undefined && { agentId: principal.agentId }),
  };
  runtime.policy.requireKnown(view);
  return runtime.policy.bind(runtime.servers, view);
}

function callOptions(request: { principal?: string | undefined }, signal: AbortSignal) {
  return { signal, ...(request.principal !== undefined && { principal: request.principal }) };
}

function listOptions(
  query: { principal?: string | undefined; cursor?: string | undefined; all?: 'true' | 'false' | undefined },
  signal: AbortSignal,
) {
  return {
    ...callOptions(query, signal),
    ...(query.cursor !== undefined && { cursor: query.cursor }),
    ...(query.all === 'true' && { all: true }),
  };
}

function page<Key extends string>(key: Key, items: unknown[], nextCursor: string | undefined) {
  return { [key]: items, ...(nextCursor !== undefined && { nextCursor }) };
}
