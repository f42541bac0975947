import { EventEmitter } from 'eventemitter3';
import type { InjectionTrace } from '../index.js';
import { ServiceMetrics } from './service-metrics.js';

/**
 * What the running service knows about itself: whether it drains, its metrics, the live trace
 * fan-out (every answered turn, to the SSE streams) and the OpenAPI document, built once.
 */
export class ServiceState {
  draining = false;
  readonly metrics = new ServiceMetrics();
  /** `trace` for every answered turn; `drain` when the service starts shutting down (streams end). */
  readonly traces = new EventEmitter<{ trace: [InjectionTrace]; drain: [] }>();
  /** Open SSE streams. */
  traceStreams = 0;
  readonly #buildDocument: () => unknown;
  #document: unknown;

  constructor(buildDocument: () => unknown) {
    this.#buildDocument = buildDocument;
  }

  openApiDocument(): unknown {
    this.#document ??= this.#buildDocument();
    return this.#document;
  }
}
