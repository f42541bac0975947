import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Attachment } from '../../src/index.js';
import { startCliWorkspace } from './support/cli-workspace.js';
import { runBuiltCli } from './support/run-built-cli.js';

describe('mcp-context pin', () => {
  it('pins survive the process: pin add in one, pin ls in the next, from ./mcp-context.sqlite', async () => {
    const workspace = await startCliWorkspace({}, runBuiltCli);
    const added = await workspace.runJson<Attachment>([
      'pin',
      'add',
      '--pipeline',
      'support',
      'gitnexus',
      'gitnexus://repos',
      '--max-tokens',
      '500',
      '--priority=-2',
    ]);
    expect(added.code).toBe(0);
    expect(added.json).toMatchObject({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repos',
      maxTokens: 500,
      priority: -2,
      id: expect.any(String),
    });
    expect(existsSync(join(workspace.directory, 'mcp-context.sqlite'))).toBe(true);

    const listed = await workspace.runJson<Attachment[]>(['pin', 'ls', '--pipeline', 'support']);
    expect(listed.code).toBe(0);
    expect(listed.json).toEqual([added.json]);

    const table = await workspace.run(['pin', 'ls', '--pipeline', 'support']);
    expect(table.stdout).toMatch(/^id\s+scope\s+server\s+target\s+priority\s+max tokens\s+added$/m);
    expect(table.stdout).toContain(`${added.json.id}  pipeline:support  gitnexus  gitnexus://repos`);
  });

  it('pins a template with key=value arguments to a conversation', async () => {
    const workspace = await startCliWorkspace();
    const result = await workspace.run([
      'pin',
      'add',
      '--conversation',
      'c-42',
      'gitnexus',
      'gitnexus://repo/{name}/context',
      'name=acme-shop',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^pinned \S+ {2}conversation:c-42 {2}gitnexus {2}gitnexus:\/\/repo\/\{name\}\/context name=acme-shop\n$/,
    );
    const { json } = await workspace.runJson<Attachment[]>(['pin', 'ls', '--conversation', 'c-42']);
    expect(json).toEqual([
      expect.objectContaining({
        template: 'gitnexus://repo/{name}/context',
        arguments: { name: 'acme-shop' },
      }),
    ]);
  });

  it('pin add refuses a --max-tokens below the smallest useful cut, naming the minimum (exit 2)', async () => {
    const workspace = await startCliWorkspace();
    const args = ['pin', 'add', '--pipeline', 'p', 'gitnexus', 'gitnexus://repos', '--max-tokens', '100'];
    const refused = await workspace.runJson(args);
    expect(refused.code).toBe(2);
    const { error } = JSON.parse(refused.stderr) as { error: { limit: number } };
    expect(error).toMatchObject({ code: 'INVALID_ATTACHMENT', field: 'pin.maxTokens', value: 100 });
    expect(error.limit).toBeGreaterThan(100);
    const text = await workspace.run(args);
    expect(text.stderr).toContain(`pin.maxTokens 100 is below ${error.limit}, the smallest useful cut`);
    expect((await workspace.runJson(['pin', 'ls', '--pipeline', 'p'])).json).toEqual([]);
    const at = await workspace.run([...args.slice(0, -1), String(error.limit)]);
    expect(at.code).toBe(0);
  });

  it('pin add of a pinned target updates that pin in place and keeps its id', async () => {
    const workspace = await startCliWorkspace();
    const args = ['pin', 'add', '--pipeline', 'p', 'gitnexus', 'gitnexus://repos'];
    const { json: first } = await workspace.runJson<Attachment>(args);
    const { json: again } = await workspace.runJson<Attachment>([...args, '--priority', '7']);
    // The same pin, updated: its version is new (a new one on every write of the pin).
    expect(again).toEqual({ ...first, priority: 7, version: expect.any(String) });
    expect(again.version).not.toBe(first.version);
    expect((await workspace.runJson<Attachment[]>(['pin', 'ls', '--pipeline', 'p'])).json).toEqual([again]);
  });

  it('pin rm removes by id (exit 0), and a second rm finds nothing (exit 1)', async () => {
    const workspace = await startCliWorkspace();
    const { json: pin } = await workspace.runJson<Attachment>([
      'pin',
      'add',
      '--pipeline',
      'support',
      'gitnexus',
      'gitnexus://setup',
    ]);
    const removed = await workspace.runJson(['pin', 'rm', pin.id]);
    expect(removed).toMatchObject({ code: 0, json: { id: pin.id, removed: true } });
    const again = await workspace.run(['pin', 'rm', pin.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no pin with id ${pin.id}`);
    expect((await workspace.runJson(['pin', 'ls', '--pipeline', 'support'])).json).toEqual([]);
  });

  it('--store and the config’s "store" choose the file', async () => {
    const workspace = await startCliWorkspace();
    await workspace.run([
      'pin',
      'add',
      '--pipeline',
      'p',
      'gitnexus',
      'gitnexus://repos',
      '--store',
      'elsewhere.sqlite',
    ]);
    expect(existsSync(join(workspace.directory, 'elsewhere.sqlite'))).toBe(true);
    workspace.writeConfig({
      mcpServers: { gitnexus: { type: 'http', url: workspace.fixture.url } },
      store: 'elsewhere.sqlite',
    });
    expect((await workspace.runJson<Attachment[]>(['pin', 'ls', '--pipeline', 'p'])).json).toHaveLength(1);
  });

  it('refuses bad pins as bad usage (exit 2), naming what was wrong', async () => {
    const workspace = await startCliWorkspace();
    const both = await workspace.run([
      'pin',
      'add',
      '--pipeline',
      'p',
      '--conversation',
      'c',
      'gitnexus',
      'gitnexus://repos',
    ]);
    expect(both).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('exactly one of --pipeline P or --conversation C'),
    });
    const unknown = await workspace.run(['pin', 'add', '--pipeline', 'p', 'gitnxus', 'gitnexus://repos']);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no MCP server named "gitnxus"'),
    });
    const missing = await workspace.runJson([
      'pin',
      'add',
      '--pipeline',
      'p',
      'gitnexus',
      'gitnexus://repo/{name}/context',
    ]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr)).toEqual({
      error: expect.objectContaining({ code: 'TEMPLATE_ARGUMENT_MISSING', field: 'arguments.name' }),
    });
    const notUri = await workspace.run(['pin', 'add', '--pipeline', 'p', 'gitnexus', 'no scheme']);
    expect(notUri.code).toBe(2);
    const noScope = await workspace.run(['pin', 'ls']);
    expect(noScope.code).toBe(2);
  });

  it('a store file that is not SQLite is a failed operation (exit 1) naming STORE_CORRUPT', async () => {
    const workspace = await startCliWorkspace();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(workspace.directory, 'mcp-context.sqlite'), 'not a database\n'.repeat(100));
    const result = await workspace.runJson(['pin', 'ls', '--pipeline', 'p']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({ error: expect.objectContaining({ code: 'STORE_CORRUPT' }) });
  });
});
