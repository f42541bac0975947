import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';

/** `mcp-context serve` as a real child process (the built CLI the e2e project provides), before the fixture. */
async function spawnServe(config: (fixtureUrl: string) => unknown, args: string[] = []) {
  const fixture = await startGitNexusFixture({
    transport: 'http',
    faults: { hangUris: ['gitnexus://setup'] },
  });
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-serve-'));
  const configPath = join(directory, 'mcp-context.json');
  writeFileSync(configPath, JSON.stringify(config(fixture.url ?? '')));
  const child = spawn(
    process.execPath,
    [inject('cliEntry'), 'serve', '--config', configPath, '--port', '0', ...args],
    // The pins go to the temp directory's default store.
    { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (data) => {
    stderr += data.toString();
  });
  onTestFinished(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await fixture.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { child, stderr: () => stderr, directory };
}

async function firstLine(child: ChildProcess, stderr: () => string): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) return line;
  throw new Error(`serve printed nothing; stderr: ${stderr()}`);
}

const baseConfig = (url: string) => ({
  mcpServers: { gitnexus: { type: 'http', url } },
  bindings: { support: { servers: ['gitnexus'] } },
  // The hanging read gives up after 1.5 s: the turn in flight then answers 200 with a timeout fate.
  readTimeoutMs: 1_500,
});

describe('mcp-context serve (a real process)', () => {
  it('prints the bound URL; SIGTERM drains the turn in flight (answered 200), refuses new connections, exits 0', async () => {
    const { child, stderr } = await spawnServe(baseConfig);
    const line = await firstLine(child, stderr);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
    expect(url, line).toBeDefined();

    const inFlight = fetch(`${url}/v1/provide`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        pipelineId: 'support',
        message: { attachments: [{ server: 'gitnexus', uri: 'gitnexus://setup' }] },
      }),
    });
    // Sent once the turn is surely under way (its read hangs at the fixture).
    await new Promise((done) => setTimeout(done, 300));
    const started = Date.now();
    child.kill('SIGTERM');
    const response = await inFlight;
    expect(response.status).toBe(200);
    const { trace } = (await response.json()) as { trace: { entries: { status: string }[] } };
    expect(trace.entries.map((entry) => entry.status)).toEqual(['timeout']);
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('prints {"url"} with --json, and refuses a non-loopback --host without keys (exit 2, before listening)', async () => {
    const { child, stderr } = await spawnServe(baseConfig, ['--json']);
    const { url } = JSON.parse(await firstLine(child, stderr)) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    child.kill('SIGTERM');
    expect((await once(child, 'exit'))[0]).toBe(0);

    const open = await spawnServe(baseConfig, ['--host', '0.0.0.0']);
    const [code] = await once(open.child, 'exit');
    expect(code).toBe(2);
    expect(open.stderr()).toContain('--host 0.0.0.0: a service without keys answers anyone who reaches it');
  });
});
