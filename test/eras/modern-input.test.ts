import { describe, expect, it, onTestFinished } from 'vitest';
import {
  type ModernResource,
  type ModernServerOptions,
  startModernServer,
} from '../../fixtures/modern/start-modern-server.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import type { ElicitationHandler, ElicitationRequest } from '../../src/mcp/server-connection.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { sharedTokenizer } from '../support/provider-harness.js';

// Issue 34.4: a 2026-07-28 read that answers input_required (basic/patterns/mrtr), through the
// provider: routed to the host's elicitation handler and retried within a bound, or a typed
// `input-required` fate naming what the server asked. Never cached either way.
async function askingHost(
  resource: ModernResource,
  elicitation?: ElicitationHandler,
  intercept?: ModernServerOptions['intercept'],
) {
  const server = await startModernServer({
    eras: 'modern-only',
    ...(intercept !== undefined && { intercept }),
    // A day-long public hint: were a retried result cached, the second turn would not read.
    resources: [{ ...resource, cacheHint: { ttlMs: 86_400_000, cacheScope: 'public' } }],
  });
  onTestFinished(() => server.close());
  const servers = new McpServerRegistry({
    reconnect: false,
    mcpServers: { audit: { type: 'http', url: server.url } },
    ...(elicitation !== undefined && { elicitation }),
  });
  onTestFinished(() => servers.close());
  const attachments = new MemoryAttachmentStore();
  await attachments.pin({ scope: { pipelineId: 'chat' }, server: 'audit', uri: resource.uri });
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy: new AccessPolicy({ bindings: { chat: { servers: ['audit'] } } }),
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 4000 },
  });
  onTestFinished(() => provider.dispose());
  const turn = async () => {
    const { blocks, trace } = await provider.provide({ pipelineId: 'chat' });
    return { text: blocks.map((block) => block.text).join(''), entry: trace.entries[0] };
  };
  const reads = () => server.posts.filter((post) => post.method === 'resources/read');
  return { server, turn, reads };
}

const log = { uri: 'log://audit', name: 'audit', text: 'audit line 1' } as const;

describe('a 2026-07-28 read that asks for input', () => {
  it('goes to the elicitation handler; the retry carries the answer, form defaults and the echoed requestState; content is injected and never cached', async () => {
    const asked: ElicitationRequest[] = [];
    const { turn, reads } = await askingHost({ ...log, asks: 'confirmation' }, async (request) => {
      asked.push(request);
      return { action: 'accept', content: { confirm: true } };
    });

    const first = await turn();
    const second = await turn();

    expect(first.entry).toMatchObject({ status: 'injected', uri: 'log://audit', cache: 'miss' });
    expect(first.text).toContain('audit line 1');
    expect(asked[0]).toMatchObject({
      server: 'audit',
      params: { message: 'Confirm reading the audit log', requestedSchema: { required: ['confirm'] } },
    });
    // The first read and its retry, on each turn: the day-long hint did not keep the answer.
    expect(second.entry).toMatchObject({ status: 'injected', cache: 'miss' });
    expect(asked).toHaveLength(2);
    expect(reads()).toHaveLength(4);
    const retry = reads()[1]?.params;
    expect(retry).toMatchObject({
      uri: 'log://audit',
      requestState: 'round-1',
      inputResponses: { confirm: { action: 'accept', content: { confirm: true, reason: 'audit' } } },
    });
    expect(reads()[0]?.params).not.toHaveProperty('requestState');
  });

  it('an answered read is no stale fallback: when the server then fails, the turn is an error, not the earlier answer', async () => {
    let failing = false;
    const { turn } = await askingHost(
      { ...log, asks: 'confirmation' },
      async () => ({ action: 'accept', content: { confirm: true } }),
      (post) =>
        failing && post.method === 'resources/read'
          ? Response.json({ jsonrpc: '2.0', id: post.id ?? null, error: { code: -32603, message: 'down' } })
          : undefined,
    );

    const first = await turn();
    failing = true;
    const second = await turn();

    expect(first.entry).toMatchObject({ status: 'injected' });
    expect(second.entry).toMatchObject({ status: 'error', cache: 'miss' });
    expect(second.text).not.toContain('audit line 1');
  });

  it('without a handler the capability is not declared: the server’s -32021 is an input-required fate naming elicitation; nothing is fabricated', async () => {
    const { turn, reads } = await askingHost({ ...log, asks: 'confirmation' });

    const { text, entry } = await turn();

    expect(text).not.toContain('audit line 1');
    expect(entry).toMatchObject({ status: 'input-required', uri: 'log://audit' });
    expect(entry?.error?.code).toBe('INPUT_REQUIRED');
    expect(entry?.error?.message).toContain(
      'needs input the host did not offer: it requires the client capabilities elicitation (registry option elicitation)',
    );
    expect(reads()).toHaveLength(1);
  });

  it('a server that asks in-band anyway, without a handler: the fate names the question and its fields', async () => {
    const { turn, reads } = await askingHost({ ...log }, undefined, (post) =>
      post.method === 'resources/read' ? askingReply(post.id, { confirm: confirmation }) : undefined,
    );

    const { entry } = await turn();

    expect(entry).toMatchObject({ status: 'input-required' });
    expect(entry?.error?.message).toContain(
      'elicitation/create "Confirm reading the audit log" (fields: confirm, reason); no elicitation handler is registered',
    );
    expect(reads()).toHaveLength(1);
  });

  it('a declined form goes back to the server; one that keeps asking fails after three rounds of answers', async () => {
    let answers = 0;
    const { turn, reads } = await askingHost({ ...log, asks: 'forever' }, async () => {
      answers++;
      return { action: 'decline' };
    });

    const { entry } = await turn();

    expect(entry).toMatchObject({ status: 'input-required' });
    expect(entry?.error?.message).toContain('still asking after 3 rounds of answers');
    expect(answers).toBe(3);
    expect(reads()).toHaveLength(4);
    expect(reads()[1]?.params).toMatchObject({ inputResponses: { confirm: { action: 'decline' } } });
  });

  it('a tool that keeps asking: the SDK’s driver stops at the same three rounds, and the failure is INPUT_REQUIRED, not a closed session', async () => {
    let answers = 0;
    const server = await startModernServer({
      eras: 'modern-only',
      resources: [{ ...log, asks: 'forever' }],
    });
    onTestFinished(() => server.close());
    const servers = new McpServerRegistry({
      reconnect: false,
      mcpServers: { audit: { type: 'http', url: server.url } },
      elicitation: async () => {
        answers++;
        return { action: 'decline' };
      },
    });
    onTestFinished(() => servers.close());

    const failure = await servers.callTool('audit', 'ask-audit').catch((error: unknown) => error);

    expect(failure).toMatchObject({ code: 'INPUT_REQUIRED', server: 'audit', field: 'inputRequests' });
    expect((failure as Error).message).toContain(
      'elicitation/create "Confirm reading the audit log" (fields: confirm, reason); it was still asking after 3 rounds of answers',
    );
    expect(answers).toBe(3);
  });

  it('sampling, which the library never offers: -32021 from an SDK server, and named in-band; the handler is not asked', async () => {
    let answers = 0;
    const handler: ElicitationHandler = async () => {
      answers++;
      return { action: 'cancel' };
    };
    const declared = await askingHost({ ...log, asks: 'sampling' }, handler);
    const inBand = await askingHost({ ...log }, handler, (post) =>
      post.method === 'resources/read'
        ? askingReply(post.id, {
            summary: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
          })
        : undefined,
    );

    const refused = (await declared.turn()).entry;
    const named = (await inBand.turn()).entry;

    expect(refused).toMatchObject({ status: 'input-required' });
    expect(refused?.error?.message).toContain('requires the client capabilities sampling;');
    expect(named).toMatchObject({ status: 'input-required' });
    expect(named?.error?.message).toContain('sampling/createMessage; only elicitations are answered');
    expect(answers).toBe(0);
  });

  it('more than ten questions at once are not put to the user', async () => {
    let answers = 0;
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`q${index}`, confirmation]));
    const { turn } = await askingHost(
      { ...log },
      async () => {
        answers++;
        return { action: 'cancel' };
      },
      (post) => (post.method === 'resources/read' ? askingReply(post.id, many) : undefined),
    );

    const { entry } = await turn();

    expect(entry?.error?.message).toContain('it asked for more than ten at once');
    expect(entry?.error?.message.split('elicitation/create')).toHaveLength(11);
    expect(answers).toBe(0);
  });

  it('an answer that is not an ElicitResult is the host’s error, and is not sent', async () => {
    const { turn, reads } = await askingHost(
      { ...log, asks: 'confirmation' },
      async () => ({ action: 'maybe' }) as never,
    );

    const { entry } = await turn();

    expect(entry).toMatchObject({ status: 'error' });
    expect(entry?.error?.code).toBe('INVALID_OPTION');
    expect(reads()).toHaveLength(1);
  });
});

const confirmation = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Confirm reading the audit log',
    requestedSchema: {
      type: 'object',
      properties: { confirm: { type: 'boolean' }, reason: { type: 'string' } },
    },
  },
};

/** A read's answer written by hand: input_required, whatever the client declared. */
function askingReply(id: string | number | undefined, inputRequests: Record<string, unknown>): Response {
  return Response.json({
    jsonrpc: '2.0',
    id: id ?? null,
    result: { resultType: 'input_required', inputRequests, requestState: 'hand-written' },
  });
}
