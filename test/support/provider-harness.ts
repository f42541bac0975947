import { onTestFinished } from 'vitest';
import { type GitNexusFixtureOptions, startGitNexusFixture } from '../../fixtures/index.js';
import type { AttachmentStore } from '../../src/attachments/attachment-store.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy, type AccessPolicyOptions } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import type { ResourceContextProviderOptions } from '../../src/provider/resource-context-provider-options.js';

export type TransportKind = 'memory' | 'http';

/** One tokenizer for the whole test process, as a host would hold one. */
export const sharedTokenizer = createTiktokenTokenizer();

/**
 * A GitNexus fixture, a registry naming it `gitnexus`, a memory store, a policy binding the
 * `support` pipeline to it, and a provider; everything is closed when the test finishes.
 */
export async function startProviderHarness(
  transport: TransportKind,
  options: {
    fixture?: Omit<GitNexusFixtureOptions, 'transport'>;
    extraServers?: McpServerRegistryOptions['mcpServers'];
    /** Registry options beside mcpServers (caps, audit sinks, reconnect). */
    registry?: Omit<McpServerRegistryOptions, 'mcpServers'>;
    /** Replaces the default policy (pipeline `support` bound to every server). */
    policy?: AccessPolicyOptions;
    provider?: Partial<Omit<ResourceContextProviderOptions, 'servers' | 'attachments' | 'policy'>>;
    /** Replaces the memory store (closing it stays the caller's). */
    attachments?: AttachmentStore;
  } = {},
) {
  const fixture = await startGitNexusFixture({ transport, ...options.fixture });
  const servers = new McpServerRegistry({
    mcpServers: { gitnexus: fixture.serverConfig, ...options.extraServers },
    ...options.registry,
  });
  const attachments = options.attachments ?? new MemoryAttachmentStore();
  const policy = new AccessPolicy(
    options.policy ?? {
      bindings: { support: { servers: ['gitnexus', ...Object.keys(options.extraServers ?? {})] } },
    },
  );
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy,
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 8000 },
    ...options.provider,
  });
  onTestFinished(async () => {
    provider.dispose();
    await servers.close();
    await fixture.close();
  });
  return { fixture, servers, attachments, policy, provider };
}
