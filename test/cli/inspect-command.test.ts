import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { startCliWorkspace } from './support/cli-workspace.js';

describe('mcp-context inspect', () => {
  it('serves the page on 127.0.0.1 with the config’s servers and the store’s pins, and stops on SIGTERM', async () => {
    const workspace = await startCliWorkspace();
    await workspace.run(['pin', 'add', '--pipeline', 'support', 'gitnexus', 'gitnexus://repos']);
    const child = spawn(process.execPath, [inject('cliEntry'), 'inspect', '--port', '0', '--json'], {
      cwd: workspace.directory,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const lines = createInterface({ input: child.stdout });
    let output = '';
    for await (const line of lines) {
      output += line;
      if (line === '}') break;
    }
    const { url, token } = JSON.parse(output) as { url: string; token: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(token.length).toBeGreaterThanOrEqual(32);

    const readState = async () =>
      (await (await fetch(`${url}api/state`)).json()) as {
        options: unknown;
        servers: { state: string }[];
        pins: { uri: string }[];
      };
    await expect.poll(async () => (await readState()).servers[0]?.state).toBe('connected');
    const state = await readState();
    expect(state.options).toMatchObject({ content: false, pinning: false });
    expect(state.pins.map((pin) => pin.uri)).toEqual(['gitnexus://repos']);
    expect((await fetch(url)).headers.get('content-type')).toBe('text/html; charset=utf-8');

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('refuses a port out of range as bad usage', async () => {
    const workspace = await startCliWorkspace();
    const result = await workspace.run(['inspect', '--port', '70000']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port: expected an integer 0–65535 (got "70000")');
  });
});
