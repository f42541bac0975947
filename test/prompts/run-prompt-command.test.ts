import { describe, expect, it, onTestFinished } from 'vitest';
import { MemoryAuditSink } from '../../src/audit/memory-audit-sink.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { runPromptCommand } from '../../src/prompts/run-prompt-command.js';
import { pixelPng, startPromptServer } from './support/prompt-server.js';

async function setUp(transport: 'memory' | 'http') {
  const promptServer = await startPromptServer(transport);
  const audit = new MemoryAuditSink();
  const servers = new McpServerRegistry({
    mcpServers: { docs: promptServer.config },
    audit,
    reconnect: false,
  });
  onTestFinished(() => servers.close());
  return { promptServer, servers, audit };
}

describe.each(['memory', 'http'] as const)('runPromptCommand over %s', (transport) => {
  it('runs a slash command with quoted arguments and returns the messages with their roles', async () => {
    const { promptServer, servers } = await setUp(transport);
    const result = await runPromptCommand(
      servers,
      '/mcp__docs__review target="C:\\srv\\shop app" note=urgent',
    );
    expect(promptServer.gets).toEqual([
      { name: 'review', arguments: { target: 'C:\\srv\\shop app', note: 'urgent' } },
    ]);
    expect(result).toMatchObject({
      server: 'docs',
      prompt: 'review',
      description: 'Review a target',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Review C:\\srv\\shop app (urgent)' }] }],
    });
  });

  it('takes JSON arguments too', async () => {
    const { promptServer, servers } = await setUp(transport);
    await runPromptCommand(servers, '/mcp__docs__review {"target": "checkout", "note": 3}');
    expect(promptServer.gets[0]?.arguments).toEqual({ target: 'checkout', note: '3' });
  });

  it('rejects a missing required argument before any prompts/get reaches the server', async () => {
    const { promptServer, servers, audit } = await setUp(transport);
    await expect(runPromptCommand(servers, '/mcp__docs__review note=urgent')).rejects.toMatchObject({
      code: 'PROMPT_ARGUMENT_MISSING',
      field: 'arguments.target',
    });
    await expect(runPromptCommand(servers, '/mcp__docs__review target=""')).rejects.toMatchObject({
      code: 'PROMPT_ARGUMENT_MISSING',
    });
    expect(promptServer.gets).toEqual([]);
    expect(audit.records.map((record) => [record.operation, record.status, record.errorCode])).toEqual([
      ['prompts/get', 'error', 'PROMPT_ARGUMENT_MISSING'],
      ['prompts/get', 'error', 'PROMPT_ARGUMENT_MISSING'],
    ]);
  });

  it('rejects malformed commands without calling the server', async () => {
    const { promptServer, servers } = await setUp(transport);
    await expect(runPromptCommand(servers, '/mcp__docs__review target="unterminated')).rejects.toMatchObject({
      code: 'INVALID_PROMPT_COMMAND',
    });
    await expect(runPromptCommand(servers, 'review target=x')).rejects.toMatchObject({
      code: 'INVALID_PROMPT_COMMAND',
    });
    expect(promptServer.gets).toEqual([]);
  });

  it('converts embedded resources like attached ones: framed, escaped, images as parts or placeholders', async () => {
    const { servers } = await setUp(transport);
    const withImages = await runPromptCommand(servers, '/mcp__docs__briefing', { model: { images: true } });
    expect(withImages.messages.map((message) => message.role)).toEqual(['user', 'user', 'user', 'assistant']);
    const [intro, overview, logo, link] = withImages.messages;
    expect(intro?.content).toEqual([{ type: 'text', text: 'Brief me on the service.' }]);
    const framed = (overview?.content[0] as { text: string } | undefined)?.text ?? '';
    expect(framed).toMatch(
      /^<mcp-resource server="docs" uri="notes:\/\/service\/overview" mime="text\/markdown"/,
    );
    expect(framed).toContain('The service sells shoes.');
    // The embedded text cannot close its frame: exactly one closing tag, the frame's own.
    expect(framed.match(/<\/mcp-resource>/g)).toHaveLength(1);
    expect(logo?.content[1]).toEqual({
      type: 'media',
      part: {
        kind: 'image',
        uri: 'notes://service/logo',
        mimeType: 'image/png',
        data: pixelPng,
        bytes: expect.any(Number),
      },
    });
    expect(link?.content).toEqual([
      {
        type: 'text',
        text: '<mcp-resource-link server="docs" uri="notes://service/runbook" name="runbook" mime="text/markdown" read="not yet: the host may attach it"/>',
      },
    ]);
    expect(link?.links).toEqual([
      { server: 'docs', uri: 'notes://service/runbook', name: 'runbook', mimeType: 'text/markdown' },
    ]);

    const textOnly = await runPromptCommand(servers, '/mcp__docs__briefing');
    const logoText = (textOnly.messages[2]?.content[0] as { text: string } | undefined)?.text;
    expect(textOnly.messages[2]?.content).toHaveLength(1);
    expect(logoText).toContain('content not shown');
    expect(textOnly.messages[2]?.omittedContents).toEqual([
      expect.objectContaining({ uri: 'notes://service/logo', mimeType: 'image/png' }),
    ]);
  });

  it('through a pipeline binding: denied prompts never reach the server, allowed ones are audited as the pipeline', async () => {
    const { promptServer, servers, audit } = await setUp(transport);
    const policy = new AccessPolicy({
      bindings: { support: { servers: [{ name: 'docs', prompts: ['review'] }] } },
    });
    const bound = policy.bind(servers, { pipelineId: 'support' });
    await expect(runPromptCommand(bound, '/mcp__docs__briefing')).rejects.toMatchObject({
      code: 'POLICY_DENIED',
    });
    await runPromptCommand(bound, '/mcp__docs__review target=cart');
    expect(promptServer.gets.map((get) => get.name)).toEqual(['review']);
    expect(audit.records.map((record) => [record.actor, record.prompt, record.status])).toEqual([
      [{ kind: 'pipeline', pipelineId: 'support' }, 'briefing', 'denied'],
      [{ kind: 'pipeline', pipelineId: 'support' }, 'review', 'ok'],
    ]);
  });
});
