import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import type { TraceStatus } from '../../src/types.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';
import { bodyArbitrary, bodyOf, longestRunChars, type Segment } from '../support/long-run-bodies.js';

/*
 * No content up to maxReadBytes makes provide() reject: arbitrary text and blob contents (runs of
 * megabytes without a pre-tokenizer boundary: one letter, base64, CJK, lone surrogates, NUL,
 * mixed), served by a real in-process MCP server and provided through a real provider with a
 * small or a large budget. The turn resolves, every attachment has a fate in the trace (none an
 * untyped INTERNAL_ERROR), and the rendered context, counted whole, is within the budget.
 */

const maxReadBytes = 4 * 1024 * 1024;
// Bodies up to 5 million characters: past maxReadBytes for one letter, up to 15 MB for CJK.
const maxChars = 5_000_000;

const statuses: readonly TraceStatus[] = [
  'injected',
  'omitted',
  'truncated',
  'omitted-budget',
  'denied',
  'error',
  'timeout',
  'stale',
  'unsupported',
];

interface ItemSpec {
  readonly body: readonly Segment[];
  readonly as: 'text' | 'blob';
  readonly mimeType: string | undefined;
}

const itemArbitrary: fc.Arbitrary<ItemSpec> = fc.record({
  body: bodyArbitrary(maxChars),
  as: fc.constantFrom('text' as const, 'text' as const, 'blob' as const),
  mimeType: fc.constantFrom(
    'text/plain',
    'text/markdown',
    'application/json',
    'text/html',
    'text/csv',
    'application/octet-stream',
    'image/png',
    'application/pdf',
    undefined,
  ),
});

// One server for the file: what each URI answers is set by the run that reads it.
const served = new Map<string, ReadResourceResult['contents']>();
const sessions: Server[] = [];
const servers = new McpServerRegistry({
  mcpServers: {
    docs: {
      type: 'transport',
      createTransport: async () => {
        const server = new Server(
          { name: 'any-content', version: '1.0.0' },
          { capabilities: { resources: {} } },
        );
        server.setRequestHandler(ListResourcesRequestSchema, async () => ({
          resources: [...served.keys()].map((uri) => ({ uri, name: uri })),
        }));
        server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
          contents: served.get(request.params.uri) ?? [],
        }));
        sessions.push(server);
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        return clientSide;
      },
    },
  },
  maxReadBytes,
});
const tokenizer = createTiktokenTokenizer();
const provider = new ResourceContextProvider({
  servers,
  attachments: new MemoryAttachmentStore(),
  policy: new AccessPolicy({ bindings: { fuzz: { servers: ['docs'] } } }),
  tokenizer,
  budget: { maxTokens: 8000 },
  cache: false,
});
afterAll(async () => {
  provider.dispose();
  await servers.close();
  await Promise.all(sessions.map((server) => server.close()));
  tokenizer.dispose();
});

describe('fuzz: no content up to maxReadBytes makes provide() reject', () => {
  it('property: provide() resolves, every attachment has a fate, and the context is within the budget', async () => {
    let run = 0;
    let longest = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(itemArbitrary, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }),
        fc.oneof(fc.constantFrom(64, 300, 8000, 120_000), fc.integer({ min: 40, max: 20_000 })),
        fc.constantFrom('head' as const, 'tail' as const, 'head-tail' as const, 'relevant' as const),
        async (attachments, maxTokens, truncation) => {
          run++;
          const uris = attachments.map((items, index) => {
            const uri = `doc://run-${run}/${index}`;
            served.set(
              uri,
              items.map((item) => {
                const body = bodyOf(item.body, maxChars);
                longest = Math.max(longest, longestRunChars(item.body, maxChars));
                const mimeType = item.mimeType === undefined ? {} : { mimeType: item.mimeType };
                return item.as === 'text'
                  ? { uri, ...mimeType, text: body }
                  : { uri, ...mimeType, blob: Buffer.from(body, 'utf8').toString('base64') };
              }),
            );
            return uri;
          });
          try {
            const { trace, blocks } = await provider.provide({
              pipelineId: 'fuzz',
              message: { text: 'the checkout', attachments: uris.map((uri) => ({ server: 'docs', uri })) },
              budget: { maxTokens, truncation },
            });
            // Every attachment has one fate, and none is an untyped failure.
            for (const uri of uris) {
              const entries = trace.entries.filter((entry) => entry.uri === uri);
              expect(entries, uri).toHaveLength(1);
              expect(statuses).toContain(entries[0]?.status);
              expect(entries[0]?.error?.code, entries[0]?.error?.message).not.toBe('INTERNAL_ERROR');
            }
            // The budget is never exceeded: by the trace, and by the rendered context counted whole.
            expect(trace.budget.usedTokens).toBeLessThanOrEqual(maxTokens);
            expect(await tokenizer.count(blocks.map((block) => block.text).join(''))).toBe(
              trace.budget.usedTokens,
            );
          } finally {
            for (const uri of uris) served.delete(uri);
          }
        },
      ),
      fuzzParameters(16, { longShare: 1 / 200 }),
    );
    // The generator reached boundary-less runs of megabytes, not only short strings.
    expect(longest).toBeGreaterThanOrEqual(1_000_000);
  }, 180_000);
});
