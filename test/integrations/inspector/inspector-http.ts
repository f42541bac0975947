import { request } from 'node:http';
import { onTestFinished } from 'vitest';
import {
  createInspector,
  type Inspector,
  type InspectorOptions,
  type ListeningInspector,
  listenInspector,
} from '../../../src/inspector.js';
import { startProviderHarness } from '../../support/provider-harness.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A plain node:http request, so tests can set headers fetch would not (Host). */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** The provider harness (GitNexus fixture, `support` pipeline) with an inspector on 127.0.0.1. */
export async function startInspectorHarness(
  options: InspectorOptions = {},
  harnessOptions: Parameters<typeof startProviderHarness>[1] = {},
): Promise<
  Awaited<ReturnType<typeof startProviderHarness>> & {
    inspector: Inspector;
    listening: ListeningInspector;
  }
> {
  const harness = await startProviderHarness('http', harnessOptions);
  const inspector = createInspector(harness.provider, harness.servers, options);
  const listening = await listenInspector(inspector);
  onTestFinished(() => listening.close());
  return { ...harness, inspector, listening };
}

/** Server-sent events from `url`, parsed; `next(name)` waits for the next event of that name. */
export async function openEventStream(url: string) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  if (!response.body) throw new Error('no event stream body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const queue: { event: string; data: string }[] = [];
  let buffer = '';
  onTestFinished(() => controller.abort());
  return {
    status: response.status,
    async next(name: string): Promise<unknown> {
      for (;;) {
        const index = queue.findIndex((item) => item.event === name);
        if (index >= 0) return JSON.parse(queue.splice(index, 1)[0]?.data ?? 'null');
        const { value, done } = await reader.read();
        if (done) throw new Error(`the event stream ended before a "${name}" event`);
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event !== undefined && data !== undefined) queue.push({ event, data });
          end = buffer.indexOf('\n\n');
        }
      }
    },
  };
}
