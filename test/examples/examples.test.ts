import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

/** Runs an example as a reader would (`npx tsx examples/…`), with no model key in its environment. */
async function runExample(file: string): Promise<string> {
  const environment = { ...process.env };
  delete environment.OPENAI_API_KEY;
  delete environment.ANTHROPIC_API_KEY;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join('examples', file)], {
    cwd: root,
    env: environment,
    timeout: 60_000,
  });
  return stdout;
}

describe('the README examples, against the bundled fixture and a stub model', () => {
  it.each([
    ['openai-chat-completions.ts', '; asked: which modules are involved?'],
    ['anthropic-messages.ts', ', cache_control set; asked: which modules are involved?'],
    ['ai-sdk-generate-text.ts', ''],
  ])('%s sends both pinned resources to the model on each of its two turns', async (file, tail) => {
    const output = await runExample(file);
    const answers = output.split('\n').filter((line) => line.startsWith('(stub model)'));
    expect(answers).toHaveLength(2);
    for (const answer of answers)
      expect(answer).toMatch(/^\(stub model\) 2 resources in \d{4,} characters of context/);
    expect(answers[1]?.endsWith(tail)).toBe(true);
    expect(output).toContain('gitnexus://repos  injected');
    expect(output).toContain('gitnexus://repo/acme-shop/context  injected');
  });
});

describe('the config-file example', () => {
  it('builds the registry, policy and provider from a loaded mcp-context.json and injects the pin', async () => {
    const output = await runExample('from-config-file.ts');
    expect(output).toContain('servers: gitnexus; budget 4000 tokens');
    expect(output).toMatch(/gitnexus:\/\/repos {2}injected {2}\d+ tokens/);
  });
});

describe('the hosted authorization example', () => {
  it('authorizes on AUTH_REQUIRED and repeats: a registry read, then a turn asked again', async () => {
    const output = await runExample('hosted-authorization.ts');
    expect(output.split('\n').filter(Boolean)).toEqual([
      'ada read: "notes of ada"',
      "bob's turn 1: notes needs authorization",
      "bob's turn: private://notes  injected",
    ]);
  });
});
