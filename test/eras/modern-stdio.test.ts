import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ModernStdioServerOptions,
  modernStdioServer,
} from '../../fixtures/modern/modern-stdio-server.js';
import type { ContextError } from '../../src/errors.js';
import { endpointPolicySchema } from '../../src/mcp/endpoint-policy.js';
import { EraVerdicts } from '../../src/mcp/era-verdicts.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { ServerConnection } from '../../src/mcp/server-connection.js';

const note = { uri: 'note://a', name: 'a', text: 'alpha', mimeType: 'text/plain' };
// The fixture's options travel in its env, which a config treats as secret unless told otherwise.
const notSecret = ['MODERN_SERVER_OPTIONS', 'FIXTURE_GREETING'];

describe('stdio servers of the 2026-07-28 revision (the v2 server package’s serveStdio)', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((item) => item.close()));
  });
  const start = (options: Partial<ModernStdioServerOptions> & Pick<ModernStdioServerOptions, 'eras'>) => {
    const server = modernStdioServer({ resources: [note], ...options });
    open.push(server);
    return server;
  };
  const registry = (options: ConstructorParameters<typeof McpServerRegistry>[0]) => {
    const servers = new McpServerRegistry({ reconnect: false, ...options });
    open.push(servers);
    return servers;
  };
  /** What each child received, child by child in the order they started. */
  const byChild = (inbound: readonly { pid: number; method: string | undefined }[]) => {
    const children = new Map<number, (string | undefined)[]>();
    for (const { pid, method } of inbound) children.set(pid, [...(children.get(pid) ?? []), method]);
    return [...children.values()];
  };

  it('a modern-only server refuses initialize with -32022: a new child is reached with the v2 client at 2026-07-28', async () => {
    const server = start({ eras: 'modern-only' });
    const servers = registry({ mcpServers: { modern: { ...server.config, notSecret } } });

    const read = await servers.readResource('modern', 'note://a');

    expect(read.contents[0]).toMatchObject({ uri: 'note://a', text: 'alpha' });
    // The refused child was closed; the modern session is its own child, opened with server/discover.
    expect(byChild(server.inbound())).toEqual([['initialize'], ['server/discover', 'resources/read']]);
    expect(servers.status('modern')).toMatchObject({
      state: 'connected',
      transport: 'stdio',
      protocolVersion: '2026-07-28',
      serverInfo: { name: 'modern-fixture' },
    });
    expect((await servers.listResources('modern')).resources.map((resource) => resource.uri)).toEqual([
      'note://a',
    ]);
  });

  it('the modern child gets what a 2025 one gets: the safe environment plus the config’s env, and its cwd', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'modern-cwd-'));
    open.push({ close: async () => rmSync(cwd, { recursive: true, force: true }) });
    process.env.MODERN_FIXTURE_PARENT_ONLY = 'not for children';
    open.push({ close: async () => void delete process.env.MODERN_FIXTURE_PARENT_ONLY });
    const resources = [
      'env://FIXTURE_GREETING',
      'env://PATH',
      'env://MODERN_FIXTURE_PARENT_ONLY',
      'cwd://',
    ].map((uri) => ({ uri, name: uri, text: '', mimeType: 'text/plain' }));
    const server = start({ eras: 'modern-only', resources, env: { FIXTURE_GREETING: 'hello' } });
    const servers = registry({ mcpServers: { modern: { ...server.config, cwd, notSecret } } });

    const texts = [];
    for (const { uri } of resources) {
      const [content] = (await servers.readResource('modern', uri)).contents;
      texts.push(content && 'text' in content ? content.text : undefined);
    }

    expect(servers.status('modern')).toMatchObject({ protocolVersion: '2026-07-28' });
    expect(texts).toEqual(['hello', process.env.PATH, '', realpathSync(cwd)]);
  });

  it("the verdict is kept: the command's next session starts its only child at server/discover", async () => {
    const server = start({ eras: 'modern-only' });
    const verdicts = new EraVerdicts();
    const connect = async () => {
      const connection = new ServerConnection(
        'modern',
        { ...server.config, plainTextErrors: false, notSecret },
        {
          reconnect: false,
          endpointPolicy: endpointPolicySchema.parse({}),
          connectTimeoutMs: 20_000,
          maxResponseBytes: 1_000_000,
          notify: () => undefined,
          eraVerdicts: verdicts,
        },
      );
      open.push(connection);
      await connection.client();
      return connection;
    };

    await connect();
    const second = await connect();

    expect(byChild(server.inbound())).toEqual([['initialize'], ['server/discover'], ['server/discover']]);
    expect(second.status()).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
  });

  it('a modern message past maxResponseBytes closes the session: LIMIT_EXCEEDED naming maxResponseBytes', async () => {
    const big = { uri: 'big://300000', name: 'big', text: '', mimeType: 'text/plain' };
    const server = start({ eras: 'modern-only', resources: [big] });
    const servers = registry({
      mcpServers: { modern: { ...server.config, notSecret } },
      maxReadBytes: 50_000,
      maxResponseBytes: 100_000,
    });
    await servers.listResources('modern');

    const failure = await servers.readResource('modern', big.uri).then(
      () => undefined,
      (error: unknown) => error as ContextError,
    );

    expect(servers.status('modern')).toMatchObject({ protocolVersion: '2026-07-28' });
    expect(failure).toMatchObject({ code: 'LIMIT_EXCEEDED', server: 'modern', field: 'maxResponseBytes' });
  });

  it.each(['dual-era', 'modern-only'] as const)(
    'a %s server that writes a megabyte to stderr is answered: its stderr is drained',
    async (eras) => {
      const noisy = { uri: 'noisy://1000000', name: 'noisy', text: '', mimeType: 'text/plain' };
      const server = start({ eras, resources: [noisy] });
      const servers = registry({
        mcpServers: { noisy: { ...server.config, notSecret } },
        requestTimeoutMs: 5_000,
      });

      const read = await servers.readResource('noisy', noisy.uri);

      expect(read.contents[0]).toMatchObject({ text: 'logged 1000000 bytes' });
    },
  );

  it('close() during the modern connect resolves and ends the modern child, which never answers server/discover nor exits on EOF', async () => {
    // Refuses initialize naming 2026-07-28 (a modern-only server), then answers nothing; notes
    // each child's pid; ignores EOF.
    const pids = join(mkdtempSync(join(tmpdir(), 'modern-silent-')), 'pids');
    open.push({ close: async () => rmSync(dirname(pids), { recursive: true, force: true }) });
    const script = [
      `require('node:fs').appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n');`,
      "let buffered = '';",
      "process.stdin.on('data', (chunk) => { buffered += chunk; let end;",
      "  while ((end = buffered.indexOf('\\n')) >= 0) { const message = JSON.parse(buffered.slice(0, end)); buffered = buffered.slice(end + 1);",
      "    if (message.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id,",
      "      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } }) + '\\n'); } });",
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const servers = new McpServerRegistry({
      mcpServers: { silent: { command: process.execPath, args: ['-e', script] } },
      requestTimeoutMs: 3_600_000,
      reconnect: false,
    });
    const noted = () =>
      existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : [];
    const call = servers.listResources('silent').catch((error: unknown) => error);
    // The refused child, then the modern one (after the SDK has let the first go).
    await expect.poll(() => noted().length, { timeout: 15_000 }).toBe(2);
    const modern = noted()[1] as number;
    const closing = performance.now();
    await servers.close();
    const closedAfterMs = performance.now() - closing;

    expect(await call).toMatchObject({ code: 'SESSION_CLOSED' });
    // Not held by the unanswered server/discover (the connect timeout is an hour); the SDK's own
    // close gives a child 2 s after stdin ends before it signals it.
    expect(closedAfterMs).toBeLessThan(5_000);
    await expect.poll(() => isRunning(modern), { timeout: 1_000 }).toBe(false);
  }, 30_000);

  it('a dual-era stdio server is reached as before, over 2025 in one child', async () => {
    const server = start({ eras: 'dual-era' });
    const servers = registry({ mcpServers: { dual: { ...server.config, notSecret } } });

    const read = await servers.readResource('dual', 'note://a');

    expect(read.contents[0]).toMatchObject({ text: 'alpha' });
    expect(byChild(server.inbound())).toEqual([
      ['initialize', 'notifications/initialized', 'resources/read'],
    ]);
    expect(servers.status('dual')).toMatchObject({ transport: 'stdio', protocolVersion: '2025-11-25' });
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
