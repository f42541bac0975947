import type { InjectionTrace } from '../index.js';

/** Upper bounds of the request-duration histogram, in seconds: loopback turns to slow servers. */
const durationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Provider (cache) counters, by their Prometheus name: the rest of its metrics are gauges. */
const providerCounters = new Set([
  'hits',
  'misses',
  'bypasses',
  'staleServes',
  'evictions',
  'invalidations',
  'tooLargeToCache',
  'promotions',
]);

/**
 * The service's own counters, rendered in the Prometheus text format (version 0.0.4). Labels
 * are bounded sets (route templates, status codes, error codes, trace statuses, server names):
 * never a pipeline, conversation or principal id, which a client could multiply without bound.
 */
export class ServiceMetrics {
  readonly #requests = new Map<string, number>();
  readonly #durations = new Map<string, { buckets: number[]; sum: number; count: number }>();
  readonly #refusals = new Map<string, number>();
  readonly #entries = new Map<string, number>();
  /** The label sets of each (method, route, status) seen, escaped once (all three are bounded sets). */
  readonly #requestLabels = new Map<string, { request: string; route: string }>();
  #turns = 0;
  inFlight = 0;

  recordRequest(method: string, route: string, status: number, seconds: number): void {
    const requestKey = `${method} ${route} ${status}`;
    let requestLabels = this.#requestLabels.get(requestKey);
    if (requestLabels === undefined) {
      requestLabels = {
        request: labels({ method, route, status: String(status) }),
        route: labels({ route }),
      };
      this.#requestLabels.set(requestKey, requestLabels);
    }
    increment(this.#requests, requestLabels.request);
    const key = requestLabels.route;
    let histogram = this.#durations.get(key);
    if (!histogram) {
      histogram = { buckets: durationBuckets.map(() => 0), sum: 0, count: 0 };
      this.#durations.set(key, histogram);
    }
    for (const [index, bound] of durationBuckets.entries()) {
      if (seconds <= bound) histogram.buckets[index] = (histogram.buckets[index] ?? 0) + 1;
    }
    histogram.sum += seconds;
    histogram.count++;
  }

  recordRefusal(code: string): void {
    increment(this.#refusals, labels({ code }));
  }

  recordTurn(trace: InjectionTrace): void {
    this.#turns++;
    for (const entry of trace.entries) increment(this.#entries, labels({ status: entry.status }));
  }

  /**
   * The exposition text, with the provider's cache figures, the fleet's shared tier's counters
   * (with Redis), each server's connection state and the process's memory.
   */
  render(
    provider: Readonly<Record<string, number>> | undefined,
    servers: readonly { server: string; state: string }[],
    shared?: Readonly<Record<string, number>>,
  ): string {
    const lines: string[] = [];
    const family = (name: string, type: string, help: string, samples: Iterable<[string, number]>) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [label, value] of samples) lines.push(`${name}${label} ${value}`);
    };
    family(
      'mcp_context_http_requests_total',
      'counter',
      'HTTP requests answered, by route template and status.',
      this.#requests,
    );
    lines.push(
      '# HELP mcp_context_http_request_duration_seconds Time to answer a request, by route template.',
      '# TYPE mcp_context_http_request_duration_seconds histogram',
    );
    for (const [key, histogram] of this.#durations) {
      const inner = key.slice(1, -1);
      for (const [index, bound] of durationBuckets.entries()) {
        lines.push(
          `mcp_context_http_request_duration_seconds_bucket{${inner},le="${bound}"} ${histogram.buckets[index]}`,
        );
      }
      lines.push(
        `mcp_context_http_request_duration_seconds_bucket{${inner},le="+Inf"} ${histogram.count}`,
        `mcp_context_http_request_duration_seconds_sum${key} ${histogram.sum}`,
        `mcp_context_http_request_duration_seconds_count${key} ${histogram.count}`,
      );
    }
    family('mcp_context_http_requests_in_flight', 'gauge', 'Requests being answered now.', [
      ['', this.inFlight],
    ]);
    family(
      'mcp_context_refusals_total',
      'counter',
      'Requests refused (no or wrong key, a forbidden pipeline), by error code.',
      this.#refusals,
    );
    family('mcp_context_turns_total', 'counter', 'Turns answered.', [['', this.#turns]]);
    family(
      'mcp_context_trace_entries_total',
      'counter',
      "Attachments' fates in answered turns, by status.",
      this.#entries,
    );
    for (const [field, value] of Object.entries(provider ?? {})) {
      const counter = providerCounters.has(field);
      const name = `mcp_context_cache_${snakeCase(field)}${counter ? '_total' : ''}`;
      family(name, counter ? 'counter' : 'gauge', `The provider's ${field}.`, [['', value]]);
    }
    // Every figure of the shared tier counts events since start (hits, leads, invalidations heard, …).
    for (const [field, value] of Object.entries(shared ?? {})) {
      family(`mcp_context_shared_tier_${snakeCase(field)}_total`, 'counter', `The shared tier's ${field}.`, [
        ['', value],
      ]);
    }
    family(
      'mcp_context_server_connected',
      'gauge',
      'Whether each MCP server has a session now (1) or not (0).',
      servers.map((status) => [labels({ server: status.server }), status.state === 'connected' ? 1 : 0]),
    );
    // The names Prometheus's Node.js client uses, so existing dashboards read them.
    const memory = process.memoryUsage();
    family('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', [['', memory.rss]]);
    family('nodejs_heap_size_total_bytes', 'gauge', 'Process heap size from Node.js in bytes.', [
      ['', memory.heapTotal],
    ]);
    family('nodejs_heap_size_used_bytes', 'gauge', 'Process heap size used from Node.js in bytes.', [
      ['', memory.heapUsed],
    ]);
    family('nodejs_external_memory_bytes', 'gauge', 'Node.js external memory size in bytes.', [
      ['', memory.external],
    ]);
    return `${lines.join('\n')}\n`;
  }
}

// --- Internal helpers ---

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** `{name="value",…}` with values escaped as the text format says (backslash, quote, newline). */
function labels(values: Record<string, string>): string {
  const parts = Object.entries(values).map(
    ([name, value]) => `${name}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return `{${parts.join(',')}}`;
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
