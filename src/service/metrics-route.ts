import { z } from 'zod';
import { noQuerySchema } from './request-schemas.js';
import { defineRoute } from './service-route.js';

/** GET /metrics: the Prometheus text format. Needs a key when keys are configured (it names servers). */
export const metricsRoute = defineRoute({
  method: 'GET',
  path: '/metrics',
  operationId: 'metrics',
  summary:
    'Metrics in the Prometheus text format: requests by route and status, durations, refusals, turns, fates, cache figures, the shared tier counters, server sessions, process memory.',
  tag: 'operations',
  authenticated: true,
  query: noQuerySchema,
  responses: [
    {
      status: 200,
      description: 'Prometheus text exposition format 0.0.4',
      mediaType: 'text/plain; version=0.0.4',
      schema: z.string(),
    },
  ],
  errors: [401],
  async handle({ response }, runtime) {
    const text = runtime.state.metrics.render(
      runtime.provider.metrics as Readonly<Record<string, number>> | undefined,
      runtime.servers.statuses(),
      runtime.shared?.metrics as Readonly<Record<string, number>> | undefined,
    );
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    response.end(text);
    return 'streamed';
  },
});
