/**
 * A host that keeps its servers, bindings and budget in an `mcp-context.json` (the CLI's config
 * file) and builds the registry, the policy and the provider from it.
 *
 *   npx tsx examples/from-config-file.ts
 *
 * It writes the file into a temporary directory, naming the bundled GitNexus fixture it serves
 * on 127.0.0.1; a host reads its own file instead.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AccessPolicy,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
} from 'mcp-resource-context';
import { type ContextConfig, loadContextConfig } from 'mcp-resource-context/config';
import { startGitNexusFixture } from 'mcp-resource-context/fixtures';

const fixture = await startGitNexusFixture({ transport: 'http' });
const directory = mkdtempSync(join(tmpdir(), 'mcp-context-example-'));
const path = join(directory, 'mcp-context.json');
writeFileSync(
  path,
  JSON.stringify({
    mcpServers: { gitnexus: { type: 'http', url: fixture.url } },
    bindings: { support: { servers: ['gitnexus'] } },
    budget: { maxTokens: 4000 },
    requestTimeoutMs: 15000,
    readTimeoutMs: 5000,
  }),
);

// Validated once: a bad field throws INVALID_OPTION naming its path in the file (config.mcpServers.gitnexus.url).
// The result holds the entries as written; each constructor applies its own defaults.
const config: ContextConfig = await loadContextConfig(path);

// Registry settings in the file (requestTimeoutMs, maxReadBytes, endpointPolicy …) are in `config.registry`.
const servers = new McpServerRegistry({ mcpServers: config.mcpServers, ...config.registry });
const policy = new AccessPolicy({
  bindings: config.bindings,
  ...(config.agents && { agents: config.agents }),
});
// `config.store` (an SQLite path) or `config.postgres` name a pin store when the file has one.
const attachments = new MemoryAttachmentStore();
const provider = new ResourceContextProvider({
  servers,
  attachments,
  policy,
  budget: config.budget ?? { maxTokens: 8000 },
  ...(config.cache !== undefined && { cache: config.cache }),
  ...(config.serverInstructions !== undefined && { serverInstructions: config.serverInstructions }),
  ...(config.readTimeoutMs !== undefined && { readTimeoutMs: config.readTimeoutMs }),
  ...(config.turnDeadlineMs !== undefined && { turnDeadlineMs: config.turnDeadlineMs }),
  ...(config.skills !== undefined && { skills: config.skills }),
});

try {
  await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
  const { trace } = await provider.provide({ pipelineId: 'support', conversationId: 'c-1' });
  console.log(`servers: ${servers.serverNames.join(', ')}; budget ${trace.budget.maxTokens} tokens`);
  for (const entry of trace.entries) console.log(`  ${entry.uri}  ${entry.status}  ${entry.tokens} tokens`);
} finally {
  provider.dispose();
  await servers.close();
  await fixture.close();
  rmSync(directory, { recursive: true, force: true });
}
