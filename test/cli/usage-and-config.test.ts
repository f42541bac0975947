import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type { ProvideResult } from '../../src/index.js';
import { startCliWorkspace } from './support/cli-workspace.js';
// Usage, --help and --version load none of the library: the built CLI answers them in ~0.1 s.
import { runBuiltCli as runCli } from './support/run-built-cli.js';
import { runCliInProcess } from './support/run-cli-in-process.js';

function emptyDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-cli-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

describe('mcp-context usage', () => {
  it('--help lists every command and exits 0; no command at all exits 2', async () => {
    const directory = emptyDirectory();
    const help = await runCli(['--help'], directory);
    expect(help.code).toBe(0);
    for (const command of [
      'servers',
      'resources',
      'templates',
      'read',
      'prompts',
      'prompt',
      'pin add',
      'pin rm',
      'pin ls',
      'provide',
      'fixture serve',
      'demo',
    ]) {
      expect(help.stdout).toContain(`  ${command} `);
    }
    expect((await runCli([], directory)).code).toBe(2);
    const commandHelp = await runCli(['pin', 'add', '--help'], directory);
    expect(commandHelp).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^usage: mcp-context pin add \(--pipeline P/),
    });
  });

  it('--version (and -V) prints the version package.json gives, exit 0; with --json as JSON', async () => {
    const directory = emptyDirectory();
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      expect(await runCli([flag], directory)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
    expect(await runCli(['--version', '--json'], directory)).toMatchObject({
      code: 0,
      stdout: `${JSON.stringify({ version })}\n`,
    });
    // The version is the package's, not a command's option.
    const withCommand = await runCli(['servers', '--version'], directory);
    expect(withCommand).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('servers takes no --version'),
    });
  });

  it.each([
    [['bogus'], 'unknown command: bogus'],
    [['servers', '--bogus'], "Unknown option '--bogus'"],
    [['pin', 'ls', '--all', '--pipeline', 'p'], 'pin ls takes no --all'],
    [['resources'], 'missing <server>'],
    [['pin', 'rm', 'a', 'b'], 'unexpected argument "b"'],
  ])('%j is bad usage: exit 2 with %j', async (args, message) => {
    const result = await runCli(args, emptyDirectory());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('mcp-context config', () => {
  it('a bad config names the field and the value, exit 2; with --json as a JSON error', async () => {
    const workspace = await startCliWorkspace();
    workspace.writeConfig({ mcpServers: { docs: { type: 'http', url: 'not a url' } } });
    const human = await workspace.run(['servers']);
    expect(human.code).toBe(2);
    expect(human.stderr).toBe('mcp-context: config.mcpServers.docs.url: Invalid URL (got "not a url")\n');
    const json = await workspace.run(['servers', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'INVALID_OPTION',
        message: expect.any(String),
        field: 'config.mcpServers.docs.url',
        value: 'not a url',
      },
    });
  });

  it('bindings are checked by the access policy, named by their place in the file', async () => {
    const workspace = await startCliWorkspace();
    workspace.writeConfig({ bindings: { support: { servers: 'gitnexus' } } });
    const result = await workspace.run(['provide', '--pipeline', 'support']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('config.bindings.support.servers');
  });

  it('--config names another file; a missing one is exit 2 naming it', async () => {
    const workspace = await startCliWorkspace();
    const missing = await workspace.run(['servers', '--config', 'nowhere.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${join(workspace.directory, 'nowhere.json')}: no such file`);
  });

  it('a config file nested 10,000 deep is exit 2 saying so, not exit 1 "Maximum call stack"', async () => {
    const directory = emptyDirectory();
    writeFileSync(join(directory, 'mcp-context.json'), `${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    const result = await runCliInProcess(['servers'], directory);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nested deeper than 64 levels');
    expect(result.stderr).not.toContain('call stack');
  });

  it('--help works on every command and on each group of commands', async () => {
    const directory = emptyDirectory();
    for (const words of [['pin'], ['fixture'], ['pin', 'add'], ['pin', 'ls'], ['provide'], ['read']]) {
      const help = await runCli([...words, '--help'], directory);
      expect(help.code, words.join(' ')).toBe(0);
      expect(help.stdout, words.join(' ')).toContain(`usage: mcp-context ${words.join(' ')}`);
    }
    const group = await runCli(['pin', '--help'], directory);
    expect(group.stdout).toMatch(/pin add .*\n[\s\S]*pin rm[\s\S]*pin ls/);
    const bare = await runCli(['pin'], directory);
    expect(bare).toMatchObject({ code: 2, stderr: expect.stringContaining('pin needs one of: add, rm, ls') });
  });

  it('the config’s registry settings reach the registry: an endpointPolicy denying 127.0.0.1 refuses the fixture', async () => {
    const workspace = await startCliWorkspace();
    const listed = await workspace.runJson(['resources', 'gitnexus']);
    expect(listed.code).toBe(0);
    workspace.writeConfig({
      mcpServers: { gitnexus: { type: 'http', url: workspace.fixture.url } },
      requestTimeoutMs: 5000,
      endpointPolicy: { denyHosts: ['127.0.0.1'] },
    });
    const denied = await workspace.runJson(['resources', 'gitnexus']);
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stderr)).toMatchObject({ error: { code: 'ENDPOINT_DENIED' } });
  });

  it('a typo in a registry setting of the config is exit 2 with the nearest key', async () => {
    const workspace = await startCliWorkspace();
    workspace.writeConfig({
      mcpServers: { gitnexus: { type: 'http', url: workspace.fixture.url } },
      requestTimeoutMS: 5000,
    });
    const result = await workspace.run(['servers']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('config.requestTimeoutMS: unknown key; did you mean "requestTimeoutMs"?');
  });

  it('a typo in --pipeline is exit 2 naming UNKNOWN_PIPELINE, never an empty context with exit 0', async () => {
    const workspace = await startCliWorkspace();
    const result = await workspace.run(['provide', '--pipeline', 'ghost']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('no pipeline "ghost"');
    const json = await workspace.runJson(['provide', '--pipeline', 'ghost']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'UNKNOWN_PIPELINE', value: 'ghost' } });
  });

  it('--attach naming a server nobody configured says unknown server, not "not bound"', async () => {
    const workspace = await startCliWorkspace();
    const result = await workspace.run(['provide', '--pipeline', 'support', '--attach', 'nosuch:x://y']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no MCP server named "nosuch" is configured (configured: gitnexus)');
    expect(result.stderr).not.toContain('not bound');
  });

  it('"no servers configured" names the config file in use under --config', async () => {
    const directory = emptyDirectory();
    const file = join(directory, 'other.json');
    writeFileSync(file, JSON.stringify({ mcpServers: {} }));
    const result = await runCliInProcess(['servers', '--config', file], directory);
    expect(result).toMatchObject({ code: 0, stdout: `no servers configured (mcpServers in ${file})\n` });
  });

  it('without any config there are no servers: servers says so and exits 0', async () => {
    const result = await runCliInProcess(['servers'], emptyDirectory());
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('no servers configured') });
  });
});

describe('mcp-context demo and fixture serve', () => {
  it('demo prints three turns with their budget bars; --json gives each turn’s blocks and trace', async () => {
    const directory = emptyDirectory();
    const human = await runCliInProcess(['demo'], directory);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^GitNexus fixture serving Streamable HTTP at http:\/\/127\.0\.0\.1:\d+\/mcp$/m,
    );
    expect(human.stdout.match(/^budget \[/gm)).toHaveLength(3);
    const json = await runCliInProcess(['demo', '--json'], directory);
    const turns = JSON.parse(json.stdout) as (ProvideResult & { title: string })[];
    expect(turns).toHaveLength(3);
    expect(turns[1]?.trace.budget.maxTokens).toBe(900);
  });

  it('fixture serve listens on 127.0.0.1, prints its URL (as JSON with --json), and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [inject('cliEntry'), 'fixture', 'serve', '--json'], {
      cwd: emptyDirectory(),
    });
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const firstLine = await new Promise<string>((resolve) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('}\n')) resolve(output);
      });
    });
    const { url } = JSON.parse(firstLine) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const workspace = emptyDirectory();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      join(workspace, 'mcp-context.json'),
      JSON.stringify({ mcpServers: { gitnexus: { type: 'http', url } } }),
    );
    expect((await runCliInProcess(['templates', 'gitnexus'], workspace)).code).toBe(0);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
