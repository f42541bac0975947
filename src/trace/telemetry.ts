import type { InjectionTrace } from '../types.js';

/**
 * What the library reports to a tracing and metrics backend, as a plain interface so that the
 * root entry never loads one: `mcp-resource-context/opentelemetry` implements it over
 * `@opentelemetry/api`. Without one (the default), every instrumented step is a direct call.
 */
export type TelemetryAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

export interface TelemetrySpan {
  setAttributes(attributes: TelemetryAttributes): void;
  /** Marks the span failed, with the exception and `error.type` (the ContextError code). */
  recordError(error: unknown): void;
  end(): void;
}

export interface Telemetry {
  /**
   * Starts a span, a child of the active one; undefined when nothing records it (no tracer
   * registered, or not sampled): the caller then runs its step bare.
   */
  startSpan(
    name: string,
    attributes?: TelemetryAttributes,
    kind?: 'internal' | 'client',
  ): TelemetrySpan | undefined;
  /** Runs `run` with `span` active, so spans and requests started inside (across awaits) are its children. */
  withSpan<T>(span: TelemetrySpan, run: () => T): T;
  /**
   * The active trace context for an outgoing request's `params._meta` (`traceparent`,
   * `tracestate`), or undefined when there is none.
   */
  traceContext(): Record<string, string> | undefined;
  /** One MCP request finished (`mcp.client.operation.duration`, reads). */
  recordRequest(request: {
    readonly server: string;
    readonly method: string;
    readonly durationSeconds: number;
    readonly errorType?: string;
  }): void;
  /** A turn finished: its duration, tokens injected and omitted, cache outcomes. */
  recordTurn(trace: InjectionTrace): void;
  /** A server said content changed (`resource-updated`, `resources-list-changed`). */
  recordInvalidation(server: string, reason: string): void;
}

/**
 * Runs one step in a span named `name` when telemetry records, else calls `run` directly; a
 * throw is recorded on the span and rethrown.
 */
export async function inSpan<T>(
  telemetry: Telemetry | undefined,
  name: string,
  attributes: TelemetryAttributes | undefined,
  run: (span: TelemetrySpan | undefined) => Promise<T>,
  kind?: 'internal' | 'client',
): Promise<T> {
  const span = telemetry?.startSpan(name, attributes, kind);
  if (!span || !telemetry) return run(undefined);
  return inStartedSpan(telemetry, span, run);
}

/** `run` inside a span already started: its error recorded, the span ended however `run` ends. */
export async function inStartedSpan<T>(
  telemetry: Telemetry,
  span: TelemetrySpan,
  run: (span: TelemetrySpan) => Promise<T>,
): Promise<T> {
  try {
    return await telemetry.withSpan(span, () => run(span));
  } catch (error) {
    span.recordError(error);
    throw error;
  } finally {
    span.end();
  }
}

/** Adds the active trace context to a request's params as `_meta` (MCP spec, "_meta"; W3C Trace Context). */
export function withTraceContext<Params extends object>(
  telemetry: Telemetry | undefined,
  params: Params | undefined,
): Params | undefined {
  const carrier = telemetry?.traceContext();
  if (!carrier) return params;
  const base = (params ?? {}) as Params & { _meta?: Record<string, unknown> };
  return { ...base, _meta: { ...base._meta, ...carrier } };
}
