import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { silentHttpServer, silentMemoryServer } from '../support/silent-servers.js';

/** Long enough that only close() can end the connect: any wait on the timeout is a hang. */
const anHour = 3_600_000;

describe('close() is prompt while an initialize is unanswered', () => {
  it('in-process: close() resolves, and the call waiting for the session fails SESSION_CLOSED', async () => {
    const silent = silentMemoryServer();
    const servers = new McpServerRegistry({
      mcpServers: { silent: silent.serverConfig },
      requestTimeoutMs: anHour,
    });
    const call = servers.listResources('silent').catch((error: unknown) => error);
    await silent.initializeReached;
    await servers.close();
    expect(await call).toMatchObject({ code: 'SESSION_CLOSED', server: 'silent' });
    expect(servers.status('silent').state).toBe('closed');
  });

  it('over Streamable HTTP: close() resolves and cancels the request the server holds', async () => {
    const silent = await silentHttpServer();
    onTestFinished(() => silent.close());
    const servers = new McpServerRegistry({
      mcpServers: { silent: silent.serverConfig },
      requestTimeoutMs: anHour,
      reconnect: false,
    });
    const call = servers.listResources('silent').catch((error: unknown) => error);
    await silent.initializeReached;
    await servers.close();
    expect(await call).toMatchObject({ code: 'SESSION_CLOSED' });
    await expect.poll(() => silent.openRequests).toBe(0);
  });

  it('over stdio: close() resolves and ends a child that never answers (nor exits on stdin EOF)', async () => {
    // The child notes its pid, reads stdin (so initialize reaches it), answers nothing, and
    // ignores EOF.
    const pidFile = join(mkdtempSync(join(tmpdir(), 'mcp-silent-')), 'pid');
    const script = `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdin.on('data', () => {}); setInterval(() => {}, 1000);`;
    const servers = new McpServerRegistry({
      mcpServers: { silent: { command: process.execPath, args: ['-e', script] } },
      requestTimeoutMs: anHour,
      reconnect: false,
    });
    const call = servers.listResources('silent').catch((error: unknown) => error);
    await expect.poll(() => existsSync(pidFile), { timeout: 10_000 }).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await servers.close();
    expect(await call).toMatchObject({ code: 'SESSION_CLOSED' });
    // Signalled before close() resolved: gone as soon as it handles SIGTERM. (Left to the SDK,
    // the child gets 2 s after stdin ends, on a timer that does not keep a host alive.)
    await expect.poll(() => isRunning(pid), { timeout: 1_000 }).toBe(false);
  });

  it('a call’s own timeout covers connecting: an unanswered initialize is REQUEST_TIMEOUT for it', async () => {
    const silent = silentMemoryServer();
    const servers = new McpServerRegistry({
      mcpServers: { silent: silent.serverConfig },
      requestTimeoutMs: anHour,
    });
    onTestFinished(() => servers.close());
    await expect(servers.readResource('silent', 'x://a', { timeoutMs: 50 })).rejects.toMatchObject({
      code: 'READ_TIMEOUT',
      server: 'silent',
    });
    await expect(servers.listResources('silent', { timeoutMs: 50 })).rejects.toMatchObject({
      code: 'REQUEST_TIMEOUT',
    });
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
