import { z } from 'zod';
import { contractRegistry } from './contract-registry.js';
import { errorResponseSchema } from './response-schemas.js';
import type { ServiceRoute } from './service-route.js';

/** What the document says of the service itself. */
export interface OpenApiInfo {
  readonly version: string;
}

/**
 * The OpenAPI 3.1 document of the routes, generated from the same zod schemas that validate the
 * requests (zod's own JSON Schema output, draft 2020-12, which OpenAPI 3.1 takes as it is). Named
 * schemas become components, referenced by name; a query schema becomes one parameter per field.
 */
export function buildOpenApiDocument(routes: readonly ServiceRoute[], info: OpenApiInfo) {
  const components = z.toJSONSchema(contractRegistry, {
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
  }).schemas;
  const schemas = Object.fromEntries(
    Object.entries(components)
      .map(([id, schema]) => [id, withoutIdentity(schema)] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mcp-context serve',
      version: info.version,
      description:
        'MCP resources as model context, over HTTP: pins, budgeted and traced turns, listings and prompts through the access policy. Generated from the schemas that validate the requests.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'mcp-context serve --port 8080' }],
    security: [{ serviceKey: [] }],
    tags: [
      { name: 'context', description: 'Turns' },
      { name: 'pins', description: 'What is attached to a pipeline or a conversation' },
      { name: 'servers', description: 'Servers, resources and templates, through the access policy' },
      { name: 'prompts', description: 'Prompts and completion, through the access policy' },
      { name: 'operations', description: 'Probes, metrics, traces, this document' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        serviceKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A service key (config service.tenants). Without any configured, a loopback service answers without one.',
        },
      },
    },
  };
}

// --- Internal helpers ---

/** A component is named by its place in the document: zod's `$id` (a fragment) and `$schema` go. */
function withoutIdentity(schema: object): object {
  const { $id: _id, $schema: _schema, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function operationOf(route: ServiceRoute) {
  const pathParameters = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1 },
  }));
  const responses: Record<string, unknown> = {};
  for (const response of route.responses) {
    responses[String(response.status)] = {
      description: response.description,
      content: {
        [response.mediaType ?? 'application/json']: {
          ...(response.schema && { schema: schemaOf(response.schema) }),
          ...(response.example !== undefined && { example: response.example }),
        },
      },
    };
  }
  for (const status of route.errors) {
    responses[String(status)] = {
      description: errorDescriptions[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(!route.authenticated && { security: [] }),
    ...((pathParameters.length > 0 || route.query) && {
      parameters: [...pathParameters, ...queryParameters(route.query)],
    }),
    ...(route.body && {
      requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body) } } },
    }),
    responses,
  };
}

/** A registered schema by reference; any other inline. */
function schemaOf(schema: z.ZodType): object {
  const meta = contractRegistry.get(schema);
  if (meta) return { $ref: `#/components/schemas/${meta.id}` };
  return withoutIdentity(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
}

function queryParameters(schema: z.ZodType | undefined): object[] {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { description?: string }>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    ...(property.description !== undefined && { description: property.description }),
    schema: property,
  }));
}

const errorDescriptions: Record<number, string> = {
  400: 'Bad input: malformed JSON (INVALID_JSON), a field that is wrong or unknown (INVALID_REQUEST, with `hint`), a library input error',
  401: 'No service key, or not a valid one (UNAUTHENTICATED)',
  403: 'This key may not use that pipeline or agent (FORBIDDEN), or the binding does not admit it (POLICY_DENIED)',
  404: 'UNKNOWN_PIPELINE, UNKNOWN_AGENT, PIN_NOT_FOUND, RESOURCE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'The body did not arrive in time (BODY_TIMEOUT)',
  413: 'The body is larger than service.maxBodyBytes (BODY_TOO_LARGE, `limit` the cap)',
  415: 'Not application/json (UNSUPPORTED_MEDIA_TYPE)',
  422: 'The server does not offer what the call needs (CAPABILITY_MISSING)',
  502: 'The MCP server failed (CONNECT_FAILED, PROTOCOL_ERROR, SESSION_CLOSED …)',
  503: 'Draining or over a limit (SERVICE_UNAVAILABLE), or the store is unavailable',
  504: 'The MCP server did not answer in time (REQUEST_TIMEOUT, READ_TIMEOUT)',
};

// The ErrorResponse component is referenced by name above: importing it registers it.
void errorResponseSchema;
