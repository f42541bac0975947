import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { ServiceRuntime } from './service-runtime.js';
import type { Tenant } from './service-tenants.js';

/** What a handler gets: the caller's tenant and the request, validated by the route's schemas. */
export interface RouteRequest<Query, Body> {
  readonly tenant: Tenant;
  readonly query: Query;
  readonly body: Body;
  /** Path parameters, decoded (`{server}` → `params.server`). */
  readonly params: Readonly<Record<string, string>>;
  /** Aborted when the client goes away or the request times out: turns and MCP calls stop with it. */
  readonly signal: AbortSignal;
  readonly incoming: IncomingMessage;
  readonly response: ServerResponse;
}

/**
 * A JSON answer: a body to serialize, or its JSON text already made (a turn's answer, whose kept
 * parts are serialized once); `streamed` when the handler wrote the response itself (SSE, metrics text).
 */
export type RouteReply =
  | { readonly status: number; readonly body: unknown }
  | { readonly status: number; readonly json: string }
  | 'streamed';

/** One documented response of a route. */
export interface RouteResponse {
  readonly status: number;
  readonly description: string;
  /** JSON body schema (a registered one: it is referenced by name). */
  readonly schema?: z.ZodType;
  /** Default application/json. */
  readonly mediaType?: string;
  /** An example body, validated against the schema by the contract test. */
  readonly example?: unknown;
}

/**
 * One route of `mcp-context serve`: its contract (method, path, schemas, responses) and its
 * handler, declared together. The OpenAPI document is generated from the list of these.
 */
export interface ServiceRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, e.g. `/v1/servers/{server}/resources`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  /** False for probes and the document itself, which answer without a key. */
  readonly authenticated: boolean;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  readonly responses: readonly RouteResponse[];
  /** Error statuses this route documents (each with the ErrorResponse body). */
  readonly errors: readonly number[];
  handle(request: RouteRequest<unknown, unknown>, runtime: ServiceRuntime): Promise<RouteReply>;
}

/** A route whose handler sees its query and body typed by its schemas. */
export function defineRoute<
  Query extends z.ZodType = z.ZodType<undefined>,
  Body extends z.ZodType = z.ZodType<undefined>,
>(
  route: Omit<ServiceRoute, 'handle' | 'query' | 'body'> & {
    readonly query?: Query;
    readonly body?: Body;
    handle(
      request: RouteRequest<z.output<Query>, z.output<Body>>,
      runtime: ServiceRuntime,
    ): Promise<RouteReply>;
  },
): ServiceRoute {
  return route as ServiceRoute;
}
