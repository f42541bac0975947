import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { startTestService } from '../service/support/start-test-service.js';
import { missing, pythonPath } from '../support/services.js';

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

/** examples/python-host.py as a reader runs it (`python3 examples/python-host.py [--url …]`). */
async function runPythonHost(args: string[], environment: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await run(pythonPath, [join('examples', 'python-host.py'), ...args], {
    cwd: root,
    // The CLI this run built, for the serve it starts without --url.
    env: {
      ...process.env,
      MCP_CONTEXT_CLI: inject('cliEntry'),
      MCP_CONTEXT_NODE: process.execPath,
      ...environment,
    },
    timeout: 120_000,
  });
  return stdout;
}

/** Both turns' stub answers and fates: the pinned context on each turn, the attached list on the second only. */
function expectTwoTurns(output: string): void {
  const answers = output.split('\n').filter((line) => line.startsWith('(stub model)'));
  expect(answers, output).toHaveLength(2);
  expect(answers[0]).toMatch(
    /^\(stub model\) 1 resources in \d{4,} characters of context; asked: why does checkout fail\?$/,
  );
  expect(answers[1]).toMatch(
    /^\(stub model\) 2 resources in \d{4,} characters of context; asked: which modules are involved\?$/,
  );
  expect(output).toMatch(
    /pinned gitnexus:\/\/repo\/\{name\}\/context \(name=acme-shop\) to conversation python-host-/,
  );
  expect(
    output.match(/gitnexus:\/\/repo\/acme-shop\/context {2}injected {2}\d+ tokens \(conversation\)/g),
  ).toHaveLength(2);
  expect(output.match(/gitnexus:\/\/repos {2}injected {2}\d+ tokens \(message\)/g)).toHaveLength(1);
  // The OpenAI-format list: the system prompt, the context, then the conversation so far.
  expect(output).toContain('sent 3 messages: system, user, user');
  expect(output).toContain('sent 5 messages: system, user, user, assistant, user');
}

describe.skipIf(missing('python-client'))(
  'examples/python-host.py, a Python chat host on mcp-context serve',
  () => {
    it('starts a serve on the GitNexus fixture, pins the repo context to its conversation, and sends it on both turns', async () => {
      const output = await runPythonHost([]);
      expect(output).toMatch(
        /^started mcp-context serve at http:\/\/127\.0\.0\.1:\d+ on the GitNexus fixture$/m,
      );
      expect(output).toContain('server gitnexus: ');
      expectTwoTurns(output);
    });

    it('uses a running serve with --url and its key from --key-env, and removes its pin at the end', async () => {
      const key = randomBytes(16).toString('hex');
      const { url, request } = await startTestService({
        config: {
          service: { tenants: [{ id: 'example', keyEnv: 'EXAMPLE_SERVICE_KEY', pipelines: ['support'] }] },
        },
        environment: { EXAMPLE_SERVICE_KEY: key },
      });
      const output = await runPythonHost(['--url', url, '--key-env', 'EXAMPLE_SERVICE_KEY'], {
        EXAMPLE_SERVICE_KEY: key,
      });
      expect(output).not.toContain('started mcp-context serve');
      expect(output).toContain('server gitnexus: ');
      expectTwoTurns(output);
      const conversation = /to conversation (python-host-\w+)/.exec(output)?.[1] ?? '';
      const pins = await request('GET', `/v1/pins?conversationId=${conversation}`, { key });
      expect(pins.json).toEqual({ pins: [] });
    });
  },
);
