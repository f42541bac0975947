import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tiktoken } from 'tiktoken';
import type { ContentCacheOptions } from '../../src/cache.js';
import {
  AccessPolicy,
  createTiktokenTokenizer,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
  type TruncationStrategyName,
} from '../../src/index.js';
import { requireEra } from './bench-era.js';
import type { SteadyChatServer } from './steady-chat-server.js';

/** One turn of a host's chat: its conversation, new message text and a new attachment. */
export interface ChatTurn {
  readonly conversation: string;
  readonly text: string;
  readonly attachment: string;
  /** What is new this turn and was never read before: the attachment, and on a first turn the notes. */
  readonly newUris: readonly string[];
}

/**
 * What a turn handed the model, for the budget check made outside the clock: its blocks, joined
 * only for the turns checked (a 32,000-token context is ~128 KB of text, and joining it is the
 * host's work for its model call, which the floor does not do either).
 */
export interface ChatContext {
  readonly usedTokens: number;
  readonly blocks: readonly { readonly text: string }[];
}

/** A host running chat turns: the library with one truncation strategy, or the floor. */
export interface ChatHost {
  readonly name: TruncationStrategyName | 'floor';
  /** What a host does when a conversation starts, before its first turn: pin its notes. */
  open(conversation: string, notes: readonly string[]): Promise<void>;
  /** One turn; the library's answers its context, the floor nothing. */
  turn(turn: ChatTurn): Promise<ChatContext | undefined>;
  /** The content and derived caches' bytes, where there are caches. */
  cacheBytes(): { content: number; derived: number } | undefined;
  close(): Promise<void>;
}

/**
 * The library as a host runs it: its own registry (MCP session), pin store and tokenizer, the
 * pipeline `chat` pinned to every one of the server's pins, budget `maxTokens` with `truncation`;
 * each turn's message brings its text and its attachment.
 */
export async function libraryHost(
  truncation: TruncationStrategyName,
  server: SteadyChatServer,
  maxTokens: number,
  cache?: ContentCacheOptions,
): Promise<ChatHost> {
  const tokenizer = createTiktokenTokenizer();
  const servers = new McpServerRegistry({ mcpServers: { chat: { type: 'http', url: server.url } } });
  const attachments = new MemoryAttachmentStore();
  for (const uri of server.pins)
    await attachments.pin({ scope: { pipelineId: 'chat' }, server: 'chat', uri });
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy: new AccessPolicy({ bindings: { chat: { servers: ['chat'] } } }),
    tokenizer,
    budget: { maxTokens, truncation },
    readTimeoutMs: 120_000,
    turnDeadlineMs: 600_000,
    ...(cache !== undefined && { cache }),
  });
  let checked = false;
  return {
    name: truncation,
    open: async (conversation, notes) => {
      for (const uri of notes)
        await attachments.pin({ scope: { conversationId: conversation }, server: 'chat', uri });
    },
    turn: async ({ conversation, text, attachment }) => {
      const { blocks, trace } = await provider.provide({
        pipelineId: 'chat',
        conversationId: conversation,
        message: { text, attachments: [{ server: 'chat', uri: attachment }] },
      });
      if (!checked) {
        requireEra(trace, server.era);
        checked = true;
      }
      return { usedTokens: trace.budget.usedTokens, blocks };
    },
    cacheBytes: () => {
      const metrics = provider.metrics;
      return metrics && { content: metrics.bytesHeld, derived: metrics.derivedBytesHeld };
    },
    close: async () => {
      provider.dispose();
      await servers.close();
      tokenizer.dispose();
    },
  };
}

/**
 * The floor: a host that does only what cannot be avoided. It reads the bytes that are new this
 * turn (the new attachment, and on a first turn the conversation's notes) with the SDK's own
 * client over the same transport, in parallel, and counts the tokens of those bodies and of the
 * message text with tiktoken's own encoder. It keeps nothing and checks nothing.
 */
export async function floorHost(server: SteadyChatServer, encoder: Tiktoken): Promise<ChatHost> {
  const client = await floorClient(server);
  return {
    name: 'floor',
    open: async () => {},
    turn: async ({ text, newUris }) => {
      const reads = await Promise.all(newUris.map((uri) => client.readResource(uri)));
      encoder.encode_ordinary(text);
      for (const { contents } of reads)
        for (const content of contents) if ('text' in content) encoder.encode_ordinary(content.text);
      return undefined;
    },
    cacheBytes: () => undefined,
    close: () => client.close(),
  };
}

// --- Internal helpers ---

/**
 * The floor's client for the server's era: the v1 SDK client on 2025, the v2 one pinned to
 * 2026-07-28 on a modern-only server (its response cache bypassed: the floor keeps nothing).
 */
async function floorClient(server: SteadyChatServer): Promise<{
  readResource(uri: string): Promise<{ contents: readonly ({ text: string } | { blob: string })[] }>;
  close(): Promise<void>;
}> {
  if (server.era === '2025-11-25') {
    const client = new Client({ name: 'floor', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    return { readResource: (uri) => client.readResource({ uri }), close: () => client.close() };
  }
  const modern = await import('@modelcontextprotocol/client');
  const client = new modern.Client(
    { name: 'floor', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: server.era } } },
  );
  await client.connect(new modern.StreamableHTTPClientTransport(new URL(server.url)));
  return {
    readResource: (uri) => client.readResource({ uri }, { cacheMode: 'bypass' }),
    close: () => client.close(),
  };
}
