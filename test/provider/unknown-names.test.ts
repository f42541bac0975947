import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { MemoryAuditSink } from '../../src/audit/memory-audit-sink.js';
import { parseContextConfig } from '../../src/config/parse-context-config.js';
import { resourceContextMiddleware } from '../../src/integrations/ai-sdk-middleware.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';

describe('a pipeline or agent the policy has never heard of is a mistake, not an empty turn', () => {
  it('provide() rejects an unknown pipeline with UNKNOWN_PIPELINE naming the nearest one, reading nothing', async () => {
    const { provider, attachments, fixture } = await startProviderHarness('memory');
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const error = await provider.provide({ pipelineId: 'suport' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'UNKNOWN_PIPELINE', field: 'pipelineId', value: 'suport' });
    expect((error as Error).message).toBe(
      'no pipeline "suport": the access policy has no binding for it; did you mean "support"? (bindings: support)',
    );
    expect(fixture.readCount()).toBe(0);
  });

  it('a turn refused for an unknown pipeline or agent is audited: actor, principal, operation turn, denied with the code', async () => {
    const audit = new MemoryAuditSink();
    const { provider, servers } = await startProviderHarness('memory', {
      registry: { audit },
      policy: {
        bindings: { support: { servers: ['gitnexus'] } },
        agents: { triage: { servers: ['gitnexus'] } },
      },
    });
    await expect(provider.provide({ pipelineId: 'suport', principal: 'user-17' })).rejects.toMatchObject({
      code: 'UNKNOWN_PIPELINE',
    });
    await expect(provider.provide({ pipelineId: 'support', agentId: 'triag' })).rejects.toMatchObject({
      code: 'UNKNOWN_AGENT',
    });
    await servers.flushAudit();
    expect(audit.records).toEqual([
      {
        at: expect.any(String),
        actor: { kind: 'pipeline', pipelineId: 'suport' },
        principal: 'user-17',
        operation: 'turn',
        durationMs: 0,
        status: 'denied',
        errorCode: 'UNKNOWN_PIPELINE',
      },
      {
        at: expect.any(String),
        actor: { kind: 'pipeline', pipelineId: 'support', agentId: 'triag' },
        operation: 'turn',
        durationMs: 0,
        status: 'denied',
        errorCode: 'UNKNOWN_AGENT',
      },
    ]);
    // A known pipeline's turn is no refusal: nothing more is recorded for it than its operations.
    await provider.provide({ pipelineId: 'support' });
    await servers.flushAudit();
    expect(audit.records.filter((record) => record.operation === 'turn')).toHaveLength(2);
  });

  it('the AI SDK middleware surfaces it: generateText rejects, the model is never called', async () => {
    const { provider } = await startProviderHarness('memory');
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error('the model must not be called');
      },
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: resourceContextMiddleware({ provider, turn: () => ({ pipelineId: 'ghost' }) }),
    });
    await expect(generateText({ model: wrapped, prompt: 'hello' })).rejects.toMatchObject({
      code: 'UNKNOWN_PIPELINE',
    });
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});

describe('bindings that name servers nobody configured', () => {
  it('are refused at config load, at their place in the file, with the nearest configured name', () => {
    const load = () =>
      parseContextConfig({
        mcpServers: { gitnexus: { type: 'http', url: 'http://127.0.0.1:4000/mcp' } },
        bindings: { support: { servers: ['gitnexus', 'gitnexsu'] } },
      });
    expect(load).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_SERVER',
        field: 'config.bindings.support.servers.1',
        value: 'gitnexsu',
        message:
          'config.bindings.support.servers.1: no MCP server named "gitnexsu" is configured; did you mean "gitnexus"? (configured: gitnexus)',
      }),
    );
  });

  it('are refused when a provider is built over a registry without them; "*" always passes', () => {
    const servers = new McpServerRegistry({
      mcpServers: { gitnexus: { type: 'http', url: 'http://127.0.0.1:4000/mcp' } },
    });
    const build = (bindings: ConstructorParameters<typeof AccessPolicy>[0]) =>
      new ResourceContextProvider({
        servers,
        attachments: new MemoryAttachmentStore(),
        policy: new AccessPolicy(bindings),
        tokenizer: sharedTokenizer,
        budget: { maxTokens: 1000 },
      });
    expect(() =>
      build({ bindings: { support: { servers: ['gitnexus'] } }, agents: { triage: { servers: ['docs'] } } }),
    ).toThrow(expect.objectContaining({ code: 'UNKNOWN_SERVER', field: 'policy.agents.triage.servers.0' }));
    build({ bindings: { support: { servers: ['*'] } } }).dispose();
  });
});
