/**
 * A chat host on OpenAI's SDK (`openai`): before every model call it asks the provider for the
 * turn's context and sends it as a system message ahead of the conversation.
 *
 *   npx tsx examples/openai-chat-completions.ts
 *
 * It serves the bundled GitNexus fixture on 127.0.0.1. With OPENAI_API_KEY set it calls the real
 * API; without it, a stub model answers (a `fetch` that replies as the API does), so the example
 * runs with no key and no network.
 */

import {
  AccessPolicy,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
  toOpenAIMessages,
} from 'mcp-resource-context';
import { startGitNexusFixture } from 'mcp-resource-context/fixtures';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

const fixture = await startGitNexusFixture({ transport: 'http' });
// In a host: the MCP servers it connects to, e.g. { gitnexus: { url: 'https://gitnexus.example/mcp' } }.
const servers = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig } });
const policy = new AccessPolicy({ bindings: { support: { servers: ['gitnexus'] } } });
const attachments = new MemoryAttachmentStore();
const provider = new ResourceContextProvider({ servers, attachments, policy, budget: { maxTokens: 4000 } });

// The operator pins the repository list to the pipeline; the user pins a repo's context to the chat.
await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
await attachments.pin({
  scope: { conversationId: 'c-42' },
  server: 'gitnexus',
  template: 'gitnexus://repo/{name}/context',
  arguments: { name: 'acme-shop' },
});

const openai = new OpenAI(process.env.OPENAI_API_KEY ? {} : { apiKey: 'stub', fetch: stubModel });
const history: ChatCompletionMessageParam[] = [];
try {
  for (const question of ['why does checkout fail?', 'which modules are involved?']) {
    const { blocks, trace } = await provider.provide({
      pipelineId: 'support',
      conversationId: 'c-42',
      message: { text: question },
    });
    history.push({ role: 'user', content: question });
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [...toOpenAIMessages(blocks, { role: 'system' }), ...history],
    });
    const answer = completion.choices[0]?.message.content ?? '';
    history.push({ role: 'assistant', content: answer });
    console.log(`> ${question}\n${answer}`);
    for (const entry of trace.entries) console.log(`  ${entry.uri}  ${entry.status}  ${entry.tokens} tokens`);
  }
} finally {
  provider.dispose();
  await servers.close();
  await fixture.close();
}

/** A model that says what it was sent, in the shape of a Chat Completions response. */
async function stubModel(_url: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = JSON.parse(String(init?.body)) as { messages: { role: string; content: string }[] };
  const system = request.messages.filter((message) => message.role === 'system');
  const context = system.map((message) => message.content).join('');
  const resources = context.match(/<mcp-resource /g)?.length ?? 0;
  const question = request.messages.at(-1)?.content;
  const content = `(stub model) ${resources} resources in ${context.length} characters of context; asked: ${question}`;
  const body = {
    id: 'stub',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'stub',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  };
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
}
