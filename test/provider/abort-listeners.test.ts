import { getEventListeners } from 'node:events';
import { Server } from '@modelcontextprotocol/server';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startHttpHost } from '../../fixtures/gitnexus/http-host.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { sharedTokenizer } from '../support/provider-harness.js';

const pins = Array.from({ length: 2 }, (_, index) => `notes://pin/${index}`);
const notesPerConversation = 2;

/**
 * A stateful Streamable HTTP server on 127.0.0.1 (the SDK's, a session each, answers as event
 * streams): 20 pipeline pins listed, and any other URI read as a short note of its own.
 */
async function startNotesServer() {
  const host = await startHttpHost(() => {
    const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { resources: {} } });
    server.setRequestHandler('resources/list', async () => ({
      resources: pins.map((uri) => ({ uri, name: uri, mimeType: 'text/plain' })),
    }));
    server.setRequestHandler('resources/read', async ({ params }) => ({
      contents: [
        { uri: params.uri, mimeType: 'text/plain', text: `${params.uri}: ${'a note line. '.repeat(20)}` },
      ],
    }));
    return server;
  }, 0);
  const servers = new McpServerRegistry({ mcpServers: { notes: { type: 'http', url: host.url } } });
  onTestFinished(async () => {
    await servers.close();
    await host.close();
  });
  return servers;
}

/** Every MaxListenersExceededWarning the process emits from now until the test ends. */
function listenerWarnings(): Error[] {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => {
    if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning);
  };
  process.on('warning', onWarning);
  onTestFinished(() => {
    process.off('warning', onWarning);
  });
  return warnings;
}

/** Warnings are emitted in the order raised: once this one arrives, every earlier one has. */
async function warningsDelivered(): Promise<void> {
  const delivered = new Promise<void>((resolve) => {
    process.on('warning', function onMarker(warning) {
      if (warning.name !== 'AbortListenersTestMarker') return;
      process.off('warning', onMarker);
      resolve();
    });
  });
  process.emitWarning('all delivered', 'AbortListenersTestMarker');
  await delivered;
}

/**
 * The most 'abort' listeners any signal carried as it was handed to fetch: the SDK's transport
 * hands every request the one signal it aborts on close, and fetch adds one that stays until
 * the request is garbage-collected.
 */
function listenersHandedToFetch(): { most: number; requests: number } {
  const seen = { most: 0, requests: 0 };
  const fetch = globalThis.fetch;
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    seen.requests++;
    if (init?.signal) seen.most = Math.max(seen.most, getEventListeners(init.signal, 'abort').length);
    return fetch(input, init);
  });
  onTestFinished(() => {
    spy.mockRestore();
  });
  return seen;
}

describe('abort listeners stay flat on every long-lived signal', () => {
  it("2,000 first turns across 2,000 conversations, 16 at once, with the host's signal: no listener warning, no listener left", async () => {
    const warnings = listenerWarnings();
    const servers = await startNotesServer();
    const attachments = new MemoryAttachmentStore();
    for (const uri of pins) await attachments.pin({ scope: { pipelineId: 'chat' }, server: 'notes', uri });
    const provider = new ResourceContextProvider({
      servers,
      attachments,
      policy: new AccessPolicy({ bindings: { chat: { servers: ['notes'] } } }),
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 8000 },
    });
    onTestFinished(() => provider.dispose());
    const host = new AbortController();
    const fetched = listenersHandedToFetch();
    let mostOnHost = 0;
    let next = 0;
    let injected = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 2000) {
          const conversationId = `c-${next++}`;
          for (let index = 0; index < notesPerConversation; index++) {
            const uri = `notes://${conversationId}/${index}`;
            await attachments.pin({ scope: { conversationId }, server: 'notes', uri });
          }
          const { trace } = await provider.provide({
            pipelineId: 'chat',
            conversationId,
            signal: host.signal,
          });
          injected += trace.entries.filter((entry) => entry.status === 'injected').length;
          mostOnHost = Math.max(mostOnHost, getEventListeners(host.signal, 'abort').length);
        }
      }),
    );
    await warningsDelivered();
    // Every turn read its conversation's new notes over the connection (the pins once).
    expect(injected).toBe(2000 * (pins.length + notesPerConversation));
    expect(fetched.requests).toBeGreaterThanOrEqual(2000 * notesPerConversation);
    expect(warnings.map((warning) => warning.message)).toEqual([]);
    // Each request's own signal reaches fetch fresh; turns in flight share one listener on the host's.
    expect(fetched.most).toBe(0);
    expect(mostOnHost).toBeLessThanOrEqual(1);
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
  }, 120_000);

  it("500 parallel reads on one connection, each with the host's signal, leave none on it", async () => {
    const warnings = listenerWarnings();
    const servers = await startNotesServer();
    const host = new AbortController();
    await servers.listResources('notes');
    const reads = await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        servers.readResource('notes', `notes://read/${index}`, { signal: host.signal }),
      ),
    );
    await warningsDelivered();
    expect(reads.map((read) => read.contents.length)).toEqual(reads.map(() => 1));
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
    expect(warnings.map((warning) => warning.message)).toEqual([]);
  });
});
