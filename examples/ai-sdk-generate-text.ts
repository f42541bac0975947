/**
 * A host on the Vercel AI SDK (`ai@6`): the provider's middleware asks for the turn's context
 * before every model call and injects it as a system message.
 *
 *   npx tsx examples/ai-sdk-generate-text.ts
 *
 * It serves the bundled GitNexus fixture on 127.0.0.1 and answers from a stub model
 * (`MockLanguageModelV3` from `ai/test`), so it runs with no key and no network. With a real
 * model: `import { openai } from '@ai-sdk/openai'` and `const baseModel = openai('gpt-4o-mini')`.
 */
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import {
  AccessPolicy,
  McpServerRegistry,
  MemoryAttachmentStore,
  type ProvideResult,
  ResourceContextProvider,
} from 'mcp-resource-context';
import { resourceContextMiddleware } from 'mcp-resource-context/ai-sdk';
import { startGitNexusFixture } from 'mcp-resource-context/fixtures';

const fixture = await startGitNexusFixture({ transport: 'http' });
// In a host: the MCP servers it connects to, e.g. { gitnexus: { url: 'https://gitnexus.example/mcp' } }.
const servers = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig } });
const policy = new AccessPolicy({ bindings: { support: { servers: ['gitnexus'] } } });
const attachments = new MemoryAttachmentStore();
const provider = new ResourceContextProvider({ servers, attachments, policy, budget: { maxTokens: 4000 } });

await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
await attachments.pin({
  scope: { conversationId: 'c-42' },
  server: 'gitnexus',
  template: 'gitnexus://repo/{name}/context',
  arguments: { name: 'acme-shop' },
});

let last: ProvideResult | undefined;
const model = wrapLanguageModel({
  model: stubModel(),
  middleware: resourceContextMiddleware({
    provider,
    // The turn for each call: the message text is the last user message's when not given.
    turn: () => ({ pipelineId: 'support', conversationId: 'c-42' }),
    placement: 'system',
    onProvided: (result) => {
      last = result;
    },
  }),
});

try {
  for (const question of ['why does checkout fail?', 'which modules are involved?']) {
    const { text } = await generateText({ model, prompt: question });
    console.log(`> ${question}\n${text}`);
    for (const entry of last?.trace.entries ?? []) {
      console.log(`  ${entry.uri}  ${entry.status}  ${entry.tokens} tokens`);
    }
  }
} finally {
  provider.dispose();
  await servers.close();
  await fixture.close();
}

/** A model that says what it was sent. */
function stubModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const context = prompt
        .filter((message) => message.role === 'system')
        .map((message) => message.content)
        .join('');
      const resources = context.match(/<mcp-resource /g)?.length ?? 0;
      const text = `(stub model) ${resources} resources in ${context.length} characters of context`;
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 0, text: 0, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}
