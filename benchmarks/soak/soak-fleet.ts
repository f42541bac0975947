import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type GitNexusFixture, startGitNexusFixture } from '../../fixtures/index.js';
import type { McpServerRegistryOptions } from '../../src/index.js';
import { startFlakyServer } from './flaky-server.js';

const root = join(import.meta.dirname, '../..');

/** URIs each GitNexus fixture serves; `schema` fails and `processes` hangs on the in-process one. */
export const gitNexusUris = {
  repos: 'gitnexus://repos',
  setup: 'gitnexus://setup',
  context: 'gitnexus://repo/acme-shop/context',
  clusters: 'gitnexus://repo/acme-shop/clusters',
  processes: 'gitnexus://repo/acme-shop/processes',
  schema: 'gitnexus://repo/acme-shop/schema',
} as const;

/**
 * The servers a soak turns against, one per transport, each with its own way of misbehaving:
 *
 * - `local` (in-process): re-indexes (list_changed + updated); `schema` answers a JSON-RPC
 *   error, `processes` never answers (the read times out).
 * - `remote` (Streamable HTTP on 127.0.0.1): re-indexes; restarted on the same port (every
 *   session it had is gone).
 * - `child` (stdio, a child process): re-indexes on SIGUSR2; killed with SIGKILL (the registry
 *   reconnects, respawning it).
 * - `flaky` (in-process): slow reads (some past the read timeout), one in `errorEvery` fails,
 *   documents change and are announced as `resources/updated`.
 */
export async function startSoakFleet() {
  const local = await startGitNexusFixture({
    transport: 'memory',
    subscribe: true,
    listChanged: true,
    faults: {
      errorUris: { [gitNexusUris.schema]: { code: -32603, message: 'index is rebuilding' } },
      hangUris: [gitNexusUris.processes],
    },
  });
  let remote = await startGitNexusFixture({ transport: 'http', subscribe: true, listChanged: true });
  const port = Number(new URL(remote.url ?? '').port);
  let remoteReadsBefore = 0;
  const flaky = startFlakyServer({ documents: 8, maxDelayMs: 600, errorEvery: 17 });
  const counts = { restarts: 0, kills: 0, reindexes: 0, touches: 0 };

  const mcpServers: McpServerRegistryOptions['mcpServers'] = {
    local: local.serverConfig,
    remote: { type: 'http', url: remote.url ?? '' },
    child: {
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        join(root, 'fixtures/gitnexus/serve-stdio.ts'),
        '--subscribe',
        '--list-changed',
      ],
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
    },
    flaky: flaky.serverConfig,
  };

  return {
    mcpServers,
    flakyUris: flaky.uris,
    counts,
    /** Every resources/read the servers in this process answered (the child's are not seen). */
    reads: () => local.readCount() + remoteReadsBefore + remote.readCount() + flaky.reads(),
    /** Sessions each server holds, and stdio fixture processes alive: one each when nothing leaks. */
    sessions: () => ({
      local: local.sessionCount(),
      remote: remote.sessionCount(),
      flaky: flaky.sessionCount(),
      'child processes': childFixturePids().length,
    }),
    async reindexLocal(): Promise<void> {
      counts.reindexes++;
      await local.reindex();
    },
    async reindexRemote(): Promise<void> {
      counts.reindexes++;
      await remote.reindex();
    },
    async restartRemote(): Promise<void> {
      counts.restarts++;
      remoteReadsBefore += remote.readCount();
      await remote.close();
      remote = await startGitNexusFixture({ transport: 'http', port, subscribe: true, listChanged: true });
    },
    /** SIGUSR2 (re-index) or SIGKILL to the stdio fixture this process spawned, if it is running. */
    signalChild(signal: 'SIGUSR2' | 'SIGKILL'): void {
      for (const pid of childFixturePids()) {
        try {
          process.kill(pid, signal);
          if (signal === 'SIGKILL') counts.kills++;
          else counts.reindexes++;
        } catch {
          // Exited meanwhile.
        }
      }
    },
    async touchFlaky(): Promise<void> {
      counts.touches++;
      await flaky.touch(flaky.uris[counts.touches % flaky.uris.length] ?? '');
    },
    async close(): Promise<void> {
      await Promise.allSettled([local.close(), remote.close(), flaky.close()]);
    },
  };
}

export type SoakFleet = Awaited<ReturnType<typeof startSoakFleet>>;
export type { GitNexusFixture };

// --- Internal helpers ---

/** Our own children running the stdio fixture (never anyone else's process). */
function childFixturePids(): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), '-f', 'serve-stdio'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}
