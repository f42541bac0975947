import { describe, expect, it, onTestFinished } from 'vitest';
import { type FaultServerOptions, type FaultTransport, startFaultFixture } from '../../fixtures/index.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { SecretRedactor } from '../../src/credentials/secret-redactor.js';
import { checkEndpoint } from '../../src/mcp/endpoint-policy.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { redactReadResult } from '../../src/mcp/redact-read-result.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { sharedTokenizer } from '../support/provider-harness.js';

const longSecret = 'zq-7f3a9c1e5d2b';
const shortSecret = 'k9';

describe('SecretRedactor', () => {
  it('removes a secret of 4+ characters wherever it occurs, in every form it travels in', () => {
    const redactor = new SecretRedactor();
    redactor.add(longSecret);
    const base64 = Buffer.from(longSecret).toString('base64');
    const { value, count } = redactor.redactTextCounting(
      `a ${longSecret}b ${encodeURIComponent(longSecret)} ${base64}`,
    );
    expect(value).toBe('a [redacted]b [redacted] [redacted]');
    expect(count).toBe(3);
  });

  it('removes a secret under 4 characters only where it stands as a whole value, never inside words', () => {
    const redactor = new SecretRedactor();
    redactor.add(shortSecret);
    redactor.add('x');
    const cases: [string, string][] = [
      [shortSecret, '[redacted]'],
      ['x', '[redacted]'],
      ['X-Pin: k9', 'X-Pin: [redacted]'],
      ['{"x-pin":"k9","other":"k99"}', '{"x-pin":"[redacted]","other":"k99"}'],
      ['PIN=k9\nNEXT=1', 'PIN=[redacted]\nNEXT=1'],
      ['Authorization: Bearer k9', 'Authorization: Bearer [redacted]'],
      [
        'k9 is a model name, and k9s a tool; x marks the spot',
        'k9 is a model name, and k9s a tool; x marks the spot',
      ],
      ['ratio=k99', 'ratio=k99'],
    ];
    for (const [input, expected] of cases) expect(redactor.redactText(input), input).toBe(expected);
  });

  it('a plain result comes back as the same object when it holds no secret, a copy when it does', () => {
    const redactor = new SecretRedactor();
    redactor.add(longSecret);
    const clean = { contents: [{ uri: 'a://b', text: 'nothing here' }] };
    expect(redactor.redactValue(clean)).toEqual({ value: clean, count: 0 });
    expect(redactor.redactValue(clean).value).toBe(clean);
    const dirty = { contents: [{ uri: 'a://b', text: `key ${longSecret}` }] };
    const redacted = redactor.redactValue(dirty);
    expect(redacted).toEqual({ value: { contents: [{ uri: 'a://b', text: 'key [redacted]' }] }, count: 1 });
    expect(dirty.contents[0]?.text).toBe(`key ${longSecret}`);
  });
});

/** A registry and provider over one fault server named `echo`; closed when the test ends. */
async function echoSetup(
  transport: FaultTransport,
  server: FaultServerOptions,
  config: (
    serverConfig: McpServerRegistryOptions['mcpServers'][string],
  ) => McpServerRegistryOptions['mcpServers'][string],
  registry: Omit<McpServerRegistryOptions, 'mcpServers'> = {},
) {
  const fixture = await startFaultFixture(transport, server);
  const servers = new McpServerRegistry({
    mcpServers: { echo: config(fixture.serverConfig) },
    reconnect: false,
    ...registry,
  });
  const provider = new ResourceContextProvider({
    servers,
    attachments: new MemoryAttachmentStore(),
    policy: new AccessPolicy({ bindings: { support: { servers: ['echo'] } } }),
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 8000 },
  });
  onTestFinished(async () => {
    provider.dispose();
    await servers.close();
    await fixture.close();
  });
  return { fixture, servers, provider };
}

const echoResources = { 'fault://echo': { kind: 'echo' } } as const;

describe('a server that echoes its credentials into content does not get them to the model', () => {
  it('over HTTP: every header value, whatever its name and length, is redacted from content, with a trace note', async () => {
    const { servers, provider } = await echoSetup('http', { resources: echoResources }, (serverConfig) => ({
      ...(serverConfig as { type: 'http'; url: string }),
      headers: { 'X-Custom': longSecret, 'X-Pin': shortSecret },
    }));
    const read = await servers.readResource('echo', 'fault://echo');
    const text = (read.contents[0] as { text: string }).text;
    // The server did receive both headers (the echo is real), and sent them back.
    expect(text).toContain('"x-custom":"[redacted]"');
    expect(text).toContain('"x-pin":"[redacted]"');
    expect(text).not.toContain(longSecret);
    expect(read.redactions).toBe(2);

    const { blocks, trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'echo', uri: 'fault://echo' }] },
    });
    const rendered = JSON.stringify(blocks);
    expect(rendered).not.toContain(longSecret);
    expect(rendered).not.toMatch(/x-pin\\?":\\?"k9/);
    expect(trace.entries[0]).toMatchObject({
      status: 'injected',
      notes: [expect.stringContaining("2 occurrence(s) of this server's credentials removed")],
    });
  });

  it('over stdio: env values are redacted from content, short ones too; notSecret names are left alone', async () => {
    const { servers } = await echoSetup('stdio', { resources: echoResources }, (serverConfig) => {
      const stdio = serverConfig as { command: string; args: string[]; env: Record<string, string> };
      return {
        ...stdio,
        env: { ...stdio.env, MY_TOKEN: longSecret, MY_PIN: shortSecret, MODE: 'production-ready' },
        notSecret: ['MODE'],
      };
    });
    const read = await servers.readResource('echo', 'fault://echo');
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toContain('"MY_TOKEN":"[redacted]"');
    expect(text).toContain('"MY_PIN":"[redacted]"');
    expect(text).toContain('"MODE":"production-ready"');
    expect(text).not.toContain(longSecret);
  });

  it('over HTTP: the userinfo of the configured URL, sent as Basic auth, is redacted from content and status', async () => {
    const password = 'p@ss w0rd!';
    const { servers } = await echoSetup(
      'http',
      { resources: echoResources },
      (serverConfig) => {
        const url = new URL((serverConfig as { url: string }).url);
        url.username = 'svc-account';
        url.password = password;
        return { type: 'http', url: url.href };
      },
      // A policy that restricts endpoints sends through node:http, which turns userinfo into
      // `Authorization: Basic` (Node's fetch refuses such a URL outright).
      { endpointPolicy: { denyHosts: ['blocked.invalid'] } },
    );
    const read = await servers.readResource('echo', 'fault://echo');
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toContain('"authorization":"Basic [redacted]"');
    expect(text).not.toContain(Buffer.from(`svc-account:${password}`).toString('base64'));
    expect(text).not.toContain(encodeURIComponent(password));
    expect(JSON.stringify(servers.status('echo'))).not.toContain('w0rd');
  });

  it('a blob whose bytes hold the secret has it replaced in the bytes', () => {
    const redactor = new SecretRedactor();
    redactor.add(longSecret);
    const blob = Buffer.from(`head ${longSecret} tail`).toString('base64');
    const redacted = redactReadResult(
      { contents: [{ uri: 'a://b', mimeType: 'text/plain', blob }] },
      redactor,
    );
    const item = redacted.contents[0] as { blob: string };
    expect(Buffer.from(item.blob, 'base64').toString()).toBe('head [redacted] tail');
    expect(redacted.redactions).toBe(1);
  });
});

describe('secrets stay out of errors, status and traces', () => {
  it('errors shown lose every URL’s userinfo, configured or not; content keeps URLs it is about', () => {
    const redactor = new SecretRedactor();
    const error = new TypeError(
      'Request cannot be constructed from a URL that includes credentials: https://me:hunter2@a.example/mcp',
      { cause: new Error('token at https://TOKEN123@b.example/x, mail me@c.example') },
    );
    const shown = redactor.redactError(error);
    expect(shown).toBeInstanceOf(TypeError);
    expect(shown.message).toBe(
      'Request cannot be constructed from a URL that includes credentials: https://[redacted]@a.example/mcp',
    );
    expect((shown.cause as Error).message).toBe('token at https://[redacted]@b.example/x, mail me@c.example');
    expect(error.message).toContain('hunter2');
    const plain = new Error('nothing to hide at https://a.example/');
    expect(redactor.redactError(plain)).toBe(plain);
    const content = { contents: [{ uri: 'a://b', text: 'clone https://user:pass@git.example/repo' }] };
    expect(redactor.redactValue(content).value).toBe(content);
  });

  it('an option error and an ENDPOINT_DENIED quote the URL without its userinfo', async () => {
    const badUrl = 'https://ops:t0ps3cret@ bad host/mcp';
    expect(() => new McpServerRegistry({ mcpServers: { docs: { type: 'http', url: badUrl } } })).toThrow(
      /mcpServers\.docs\.url: .*\(got "https:\/\/\[redacted\]@ bad host\/mcp"\)/,
    );
    const denied = await checkEndpoint('https://ops:t0ps3cret@blocked.example/mcp', {
      preset: 'open',
      denyHosts: ['blocked.example'],
    }).catch((caught: unknown) => caught);
    expect(denied).toMatchObject({
      code: 'ENDPOINT_DENIED',
      value: 'https://[redacted]@blocked.example/mcp',
    });
    expect(JSON.stringify({ ...(denied as object), message: (denied as Error).message })).not.toContain(
      't0ps3cret',
    );
  });

  it('a server whose error and instructions echo the secret: neither the error, the status nor the trace has it', async () => {
    const { servers, provider } = await echoSetup(
      'stdio',
      {
        instructions: `use token ${longSecret} and pin=${shortSecret}`,
        resources: {
          'fault://fails': {
            kind: 'rpc-error',
            code: -32603,
            message: `rejected Authorization: Bearer ${longSecret}; pin=${shortSecret}`,
          },
        },
      },
      (serverConfig) => {
        const stdio = serverConfig as { command: string; args: string[]; env: Record<string, string> };
        return { ...stdio, env: { ...stdio.env, MY_TOKEN: longSecret, MY_PIN: shortSecret } };
      },
    );
    const error = (await servers
      .readResource('echo', 'fault://fails')
      .catch((caught: unknown) => caught)) as Error;
    expect(error.message).toBe(
      'resources/read on server "echo" failed: MCP error -32603: rejected Authorization: Bearer [redacted]; pin=[redacted]',
    );
    const status = servers.status('echo');
    expect(status.instructions).toBe('use token [redacted] and pin=[redacted]');
    expect(JSON.stringify(status)).not.toContain(longSecret);
    const { trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'echo', uri: 'fault://fails' }] },
    });
    expect(JSON.stringify(trace)).not.toContain(longSecret);
    expect(JSON.stringify(trace)).not.toContain(`pin=${shortSecret}`);
    expect(await servers.getInstructions('echo')).toBe('use token [redacted] and pin=[redacted]');
  });
});
