import { describe, expect, it } from 'vitest';
import { startCliWorkspace } from './support/cli-workspace.js';

describe('mcp-context servers', () => {
  it('shows each server’s state, transport, capabilities and counts, and exits 0 when all are up', async () => {
    const workspace = await startCliWorkspace();
    const result = await workspace.run(['servers']);
    expect(result.code).toBe(0);
    const [header, row] = result.stdout.trim().split('\n');
    expect(header).toMatch(
      /^server\s+state\s+transport\s+capabilities\s+resources\s+templates\s+prompts\s+auth\s+last error$/,
    );
    expect(row).toMatch(/^gitnexus\s+connected\s+http\s+.*resources.*\s+2\s+8\s+2\s+none$/);
  });

  it('--json gives one object per server; a server that is down is an error and the exit code is 1', async () => {
    const workspace = await startCliWorkspace({ subscribe: true });
    workspace.writeConfig({
      mcpServers: {
        gitnexus: { type: 'http', url: workspace.fixture.url },
        down: { type: 'http', url: 'http://127.0.0.1:1/mcp' },
      },
    });
    const { code, json } = await workspace.runJson<unknown[]>(['servers']);
    expect(code).toBe(1);
    // The registry's ServerStatus, plus the template count `servers` took.
    expect(json).toEqual([
      expect.objectContaining({
        server: 'gitnexus',
        state: 'connected',
        transport: 'http',
        capabilities: expect.objectContaining({ resources: expect.objectContaining({ subscribe: true }) }),
        resourceCount: 2,
        resourceTemplateCount: 8,
        promptCount: 2,
      }),
      expect.objectContaining({
        server: 'down',
        state: 'error',
        configuredTransport: 'http',
        lastError: expect.objectContaining({
          code: 'CONNECT_FAILED',
          message: expect.stringContaining('down'),
        }),
      }),
    ]);
  });
});

describe('mcp-context resources', () => {
  it('lists the first page as a table and says how to get the next one', async () => {
    const workspace = await startCliWorkspace({ pageSize: 3, extraResources: 5 });
    const result = await workspace.run(['resources', 'gitnexus']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^uri\s+mime\s+name\s+description$/);
    expect(lines.slice(1, 4).map((line) => line.split(/\s+/)[0])).toEqual([
      'gitnexus://repos',
      'gitnexus://setup',
      'gitnexus://note/001',
    ]);
    expect(lines[4]).toMatch(
      /^more: mcp-context resources gitnexus --cursor \S+ {3}\(or --all for every page\)$/,
    );
  });

  it('--cursor continues where the server left off; --all follows every page', async () => {
    const workspace = await startCliWorkspace({ pageSize: 3, extraResources: 5 });
    const first = await workspace.runJson<{ resources: { uri: string }[]; nextCursor: string }>([
      'resources',
      'gitnexus',
    ]);
    expect(first.json.resources).toHaveLength(3);
    const second = await workspace.runJson<{ resources: { uri: string }[] }>([
      'resources',
      'gitnexus',
      '--cursor',
      first.json.nextCursor,
    ]);
    expect(second.json.resources.map((resource) => resource.uri)).toEqual([
      'gitnexus://note/002',
      'gitnexus://note/003',
      'gitnexus://note/004',
    ]);
    const all = await workspace.runJson<{ resources: { uri: string }[]; nextCursor?: string }>([
      'resources',
      'gitnexus',
      '--all',
    ]);
    expect(all.code).toBe(0);
    expect(all.json.resources).toHaveLength(7);
    expect(all.json.nextCursor).toBeUndefined();
    // Progress goes to a terminal only; piped, stderr stays empty.
    expect(all.stderr).toBe('');
  });

  it('an unknown server is bad usage (exit 2) naming it', async () => {
    const workspace = await startCliWorkspace();
    const result = await workspace.run(['resources', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no MCP server named "nope"');
  });
});

describe('mcp-context templates and prompts', () => {
  it('templates lists all eight URI templates', async () => {
    const workspace = await startCliWorkspace();
    const { code, json } = await workspace.runJson<{ resourceTemplates: { uriTemplate: string }[] }>([
      'templates',
      'gitnexus',
    ]);
    expect(code).toBe(0);
    expect(json.resourceTemplates).toHaveLength(8);
    expect(json.resourceTemplates[0]?.uriTemplate).toBe('gitnexus://repo/{name}/context');
    const table = await workspace.run(['templates', 'gitnexus']);
    expect(table.stdout).toMatch(
      /^gitnexus:\/\/repo\/\{name\}\/cluster\/\{clusterName\}\s+text\/yaml\s+Module Detail/m,
    );
  });

  it('prompts lists each prompt with its arguments, optional ones marked ?', async () => {
    const workspace = await startCliWorkspace();
    const result = await workspace.run(['prompts', 'gitnexus']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^detect_impact\s+scope\? base_ref\?\s+Analyze the impact/m);
    expect(result.stdout).toMatch(/^generate_map\s+repo\?\s+Generate architecture/m);
    const { json } = await workspace.runJson<{ prompts: { name: string }[] }>(['prompts', 'gitnexus']);
    expect(json.prompts.map((prompt) => prompt.name)).toEqual(['detect_impact', 'generate_map']);
  });
});
