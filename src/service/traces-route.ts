import { ContextError, type InjectionTrace } from '../index.js';
import { clientTrace } from './provide-route.js';
import { tracesQuerySchema } from './request-schemas.js';
import { injectionTraceSchema } from './response-schemas.js';
import { defineRoute } from './service-route.js';

/** A comment line this often keeps proxies from closing an idle stream. */
const heartbeatMs = 15_000;
/** A client that reads slower than turns come is cut rather than buffered without bound. */
const maxBufferedBytes = 1024 * 1024;

/** GET /v1/traces: every answered turn's trace, live, as server-sent events. */
export const tracesRoute = defineRoute({
  method: 'GET',
  path: '/v1/traces',
  operationId: 'streamTraces',
  summary:
    'A live stream (text/event-stream) of the traces of turns this key may see: one `trace` event per answered turn, its data the InjectionTrace as JSON.',
  tag: 'operations',
  authenticated: true,
  query: tracesQuerySchema,
  responses: [
    {
      status: 200,
      description: 'Server-sent events: `event: trace`, `data: <InjectionTrace JSON>`',
      mediaType: 'text/event-stream',
      schema: injectionTraceSchema,
    },
  ],
  errors: [400, 401, 403, 503],
  async handle({ tenant, query, incoming, response }, runtime) {
    const { state, settings } = runtime;
    if (query.pipelineId !== undefined) tenant.requirePipeline(query.pipelineId);
    if (state.draining) throw new ContextError('SERVICE_UNAVAILABLE', 'the service is shutting down');
    if (state.traceStreams >= settings.maxTraceStreams) {
      throw new ContextError(
        'SERVICE_UNAVAILABLE',
        `${settings.maxTraceStreams} trace streams are open already`,
        {
          limit: settings.maxTraceStreams,
        },
      );
    }
    state.traceStreams++;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.write(': mcp-context traces\n\n');
    const visible = (trace: InjectionTrace) =>
      tenant.allowsPipeline(trace.pipelineId) &&
      (query.pipelineId === undefined || trace.pipelineId === query.pipelineId) &&
      // Another tenant's conversation on a shared pipeline is not this one's to watch.
      (trace.conversationId === undefined || tenant.conversationOf(trace.conversationId) !== undefined);
    const onTrace = (trace: InjectionTrace) => {
      if (!visible(trace)) return;
      if (response.writableLength > maxBufferedBytes) {
        response.destroy();
        return;
      }
      response.write(`event: trace\ndata: ${JSON.stringify(clientTrace(trace, tenant))}\n\n`);
    };
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), heartbeatMs);
    heartbeat.unref();
    const stop = () => {
      clearInterval(heartbeat);
      state.traces.off('trace', onTrace);
      state.traces.off('drain', end);
    };
    const end = () => response.end();
    state.traces.on('trace', onTrace);
    // Draining ends every stream, so that the server can close.
    state.traces.on('drain', end);
    response.once('close', () => {
      stop();
      state.traceStreams--;
    });
    incoming.once('close', () => response.end());
    return 'streamed';
  },
});
