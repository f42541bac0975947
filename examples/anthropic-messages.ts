/**
 * A chat host on Anthropic's SDK (`@anthropic-ai/sdk`): before every model call it asks the
 * provider for the turn's context and puts it at the head of the conversation, with
 * `cache_control` at the end of its stable prefix (the pipeline and conversation pins, which an
 * unchanged set of pins renders byte-identically every turn), so the API can cache it.
 *
 *   npx tsx examples/anthropic-messages.ts
 *
 * It serves the bundled GitNexus fixture on 127.0.0.1. With ANTHROPIC_API_KEY set it calls the
 * real API; without it, a stub model answers (a `fetch` that replies as the API does), so the
 * example runs with no key and no network.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import {
  AccessPolicy,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
  toAnthropicContent,
} from 'mcp-resource-context';
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

const anthropic = new Anthropic(
  process.env.ANTHROPIC_API_KEY ? {} : { apiKey: 'stub', fetch: stubModel as typeof fetch },
);
const history: MessageParam[] = [];
try {
  for (const question of ['why does checkout fail?', 'which modules are involved?']) {
    const { blocks, trace } = await provider.provide({
      pipelineId: 'support',
      conversationId: 'c-42',
      message: { text: question },
      model: { images: true, pdf: true },
    });
    history.push({ role: 'user', content: question });
    // The context opens the first user message: the conversation that follows does not move it.
    const [first, ...rest] = history;
    const messages: MessageParam[] = [
      {
        role: 'user',
        content: [
          ...toAnthropicContent(blocks, { cacheControl: true }),
          { type: 'text', text: String(first?.content) },
        ],
      },
      ...rest,
    ];
    const reply = await anthropic.messages.create({ model: 'claude-opus-4-7', max_tokens: 1024, messages });
    const answer = reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    history.push({ role: 'assistant', content: answer });
    console.log(`> ${question}\n${answer}`);
    for (const entry of trace.entries) console.log(`  ${entry.uri}  ${entry.status}  ${entry.tokens} tokens`);
  }
} finally {
  provider.dispose();
  await servers.close();
  await fixture.close();
}

/** A model that says what it was sent, in the shape of a Messages API response. */
async function stubModel(_url: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = JSON.parse(String(init?.body)) as {
    messages: {
      role: string;
      content: string | { type: string; text?: string; cache_control?: unknown }[];
    }[];
  };
  const opening = request.messages[0]?.content;
  const parts = Array.isArray(opening) ? opening : [];
  const context = parts.map((part) => part.text ?? '').join('');
  const resources = context.match(/<mcp-resource /g)?.length ?? 0;
  const cached = parts.some((part) => part.cache_control !== undefined);
  const last = request.messages.at(-1)?.content;
  const question = typeof last === 'string' ? last : last?.at(-1)?.text;
  const text = `(stub model) ${resources} resources in ${context.length} characters of context, cache_control ${cached ? 'set' : 'unset'}; asked: ${question}`;
  const body = {
    id: 'msg_stub',
    type: 'message',
    role: 'assistant',
    model: 'stub',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
}
