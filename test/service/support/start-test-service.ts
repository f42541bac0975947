import { onTestFinished } from 'vitest';
import {
  type GitNexusFixture,
  type GitNexusFixtureOptions,
  startGitNexusFixture,
} from '../../../fixtures/index.js';
import { MemoryAuditSink } from '../../../src/audit.js';
import { parseContextConfig } from '../../../src/config.js';
import { type RunningService, startService } from '../../../src/service/start-service.js';

export interface TestService {
  readonly service: RunningService;
  readonly url: string;
  readonly fixture: GitNexusFixture;
  /** A request to the service; JSON bodies are sent as JSON. */
  request(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string>; key?: string },
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies by their documented shape
  ): Promise<{ status: number; json: any; headers: Headers }>;
}

export interface TestServiceOptions {
  /** Merged over the default config (the fixture as `gitnexus`, pipeline `support` bound to it). */
  readonly config?: Record<string, unknown>;
  /** Servers beside the fixture's `gitnexus` and `other`. */
  readonly servers?: Record<string, unknown>;
  readonly environment?: NodeJS.ProcessEnv;
  readonly fixture?: Omit<GitNexusFixtureOptions, 'transport'>;
  readonly host?: string;
  /** Where refusals are audited (default: dropped). */
  readonly stderr?: { write(line: string): boolean };
}

/**
 * A real `serve` on 127.0.0.1, port 0, in front of the GitNexus fixture over Streamable HTTP;
 * both stopped when the test finishes.
 */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const fixture = await startGitNexusFixture({ transport: 'http', ...options.fixture });
  const config = parseContextConfig({
    mcpServers: {
      gitnexus: { type: 'http', url: fixture.url },
      other: { type: 'http', url: fixture.url },
      ...options.servers,
    },
    bindings: { support: { servers: ['gitnexus'] }, billing: { servers: ['gitnexus'] } },
    budget: { maxTokens: 4000 },
    ...options.config,
  });
  const service = await startService({
    config,
    port: 0,
    ...(options.host !== undefined && { host: options.host }),
    ...(options.environment && { environment: options.environment }),
    stderr: (options.stderr ?? { write: () => true }) as unknown as NodeJS.WritableStream,
  });
  onTestFinished(async () => {
    await service.close();
    await fixture.close();
  });
  return {
    service,
    url: service.url,
    fixture,
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.key !== undefined) headers.authorization = `Bearer ${requestOptions.key}`;
      let body: string | undefined;
      if (requestOptions.body !== undefined) {
        body =
          typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body }),
      });
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: response.status, json, headers: response.headers };
    },
  };
}

export { MemoryAuditSink };
