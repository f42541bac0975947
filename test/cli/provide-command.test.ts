import { describe, expect, it } from 'vitest';
import type { ProvideResult } from '../../src/index.js';
import { startCliWorkspace } from './support/cli-workspace.js';

describe('mcp-context provide', () => {
  it('--json is { blocks, trace } exactly as the library returns them, pins and --attach merged', async () => {
    const workspace = await startCliWorkspace();
    await workspace.run(['pin', 'add', '--pipeline', 'support', 'gitnexus', 'gitnexus://repos']);
    await workspace.run([
      'pin',
      'add',
      '--conversation',
      'c-42',
      'gitnexus',
      'gitnexus://repo/{name}/context',
      'name=acme-shop',
    ]);
    const { code, json } = await workspace.runJson<ProvideResult>([
      'provide',
      '--pipeline',
      'support',
      '--conversation',
      'c-42',
      '--attach',
      'gitnexus:gitnexus://setup',
      '--budget',
      '2500',
    ]);
    expect(code).toBe(0);
    expect(Object.keys(json).sort()).toEqual(['blocks', 'trace']);
    expect(json.trace).toMatchObject({
      pipelineId: 'support',
      conversationId: 'c-42',
      budget: { maxTokens: 2500 },
    });
    expect(json.trace.budget.usedTokens).toBeLessThanOrEqual(2500);
    expect(json.trace.entries.map((entry) => [entry.scope, entry.uri])).toEqual([
      ['message', 'gitnexus://setup'],
      ['conversation', 'gitnexus://repo/acme-shop/context'],
      ['pipeline', 'gitnexus://repos'],
    ]);
    expect(json.blocks[0]?.kind).toBe('preamble');
  });

  it('text output: the context on stdout, the trace and a budget bar naming each URI on stderr', async () => {
    const workspace = await startCliWorkspace();
    await workspace.run(['pin', 'add', '--pipeline', 'support', 'gitnexus', 'gitnexus://repos']);
    const result = await workspace.run([
      'provide',
      '--pipeline',
      'support',
      '--attach',
      'gitnexus:gitnexus://setup',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('<mcp-resource');
    expect(result.stdout).toContain('uri="gitnexus://repos"');
    expect(result.stderr).toMatch(/^scope\s+status\s+tokens\s+of\s+mime\s+uri\s+why$/m);
    expect(result.stderr).toMatch(/^budget \[[A-Z.]{40}\] \d+ \/ 4000 tokens/m);
    expect(result.stderr).toMatch(/^ {7}A=gitnexus:\/\/setup {2}B=gitnexus:\/\/repos$/m);
    expect(result.stderr).not.toContain('\u001b[');
  });

  it('a pipeline bound to no server gets every attachment denied, visibly', async () => {
    const workspace = await startCliWorkspace();
    // A pipeline with no binding at all is UNKNOWN_PIPELINE (usage-and-config.test.ts).
    workspace.writeConfig({
      mcpServers: { gitnexus: { type: 'http', url: workspace.fixture.url } },
      bindings: { support: { servers: ['gitnexus'] }, unbound: { servers: [] } },
    });
    const { code, json } = await workspace.runJson<ProvideResult>([
      'provide',
      '--pipeline',
      'unbound',
      '--attach',
      'gitnexus:gitnexus://repos',
    ]);
    expect(code).toBe(0);
    expect(json.trace.entries).toEqual([expect.objectContaining({ status: 'denied', tokens: 0 })]);
    expect(workspace.fixture.readCount()).toBe(0);
  });

  it('refuses a missing --pipeline, a malformed --attach and an unknown format with exit code 2', async () => {
    const workspace = await startCliWorkspace();
    expect((await workspace.run(['provide'])).code).toBe(2);
    const attach = await workspace.run(['provide', '--pipeline', 'support', '--attach', 'gitnexus']);
    expect(attach).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--attach: expected server:uri'),
    });
    const format = await workspace.run(['provide', '--pipeline', 'support', '--format', 'xml']);
    expect(format).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('expected one of text, openai, anthropic'),
    });
  });

  it('prints the context as OpenAI messages or Anthropic content blocks with --format', async () => {
    const workspace = await startCliWorkspace();
    const attach = ['--attach', 'gitnexus:gitnexus://repos'];
    const openai = await workspace.run(['provide', '--pipeline', 'support', ...attach, '--format', 'openai']);
    expect(openai.code).toBe(0);
    const messages = JSON.parse(openai.stdout) as {
      role: string;
      content: { type: string; text?: string }[];
    }[];
    expect(messages[0]?.role).toBe('user');
    expect(JSON.stringify(messages)).toContain('uri=\\"gitnexus://repos\\"');

    // A pipeline pin makes a stable prefix, which the Anthropic rendering marks for prompt caching.
    const pinned = await workspace.run([
      'pin',
      'add',
      '--pipeline',
      'support',
      'gitnexus',
      'gitnexus://setup',
    ]);
    expect(pinned.code).toBe(0);
    const anthropic = await workspace.run([
      'provide',
      '--pipeline',
      'support',
      ...attach,
      '--format',
      'anthropic',
    ]);
    expect(anthropic.code).toBe(0);
    const blocks = JSON.parse(anthropic.stdout) as { type: string; text?: string; cache_control?: unknown }[];
    expect(blocks.every((block) => block.type === 'text')).toBe(true);
    expect(blocks.some((block) => block.text?.includes('uri="gitnexus://repos"'))).toBe(true);
    const marked = blocks.filter((block) => block.cache_control !== undefined);
    expect(marked).toHaveLength(1);
    expect(marked[0]?.text).toContain('uri="gitnexus://setup"');
    expect(marked[0]?.cache_control).toEqual({ type: 'ephemeral' });
  });
});
