import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * MCP servers that take the client's `initialize` and never answer it (a hung server), each
 * saying when the request has reached it, so a test can act while it is unanswered.
 */
export function silentMemoryServer() {
  let reached: () => void = () => {};
  const initializeReached = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    initializeReached,
    serverConfig: {
      type: 'transport' as const,
      createTransport: async () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        serverSide.onmessage = (message: JSONRPCMessage) => {
          if ('method' in message && message.method === 'initialize') reached();
        };
        await serverSide.start();
        return clientSide;
      },
    },
  };
}

/** The same over Streamable HTTP on 127.0.0.1: the POST is read, and no response is ever sent. */
export async function silentHttpServer() {
  let reached: () => void = () => {};
  const initializeReached = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const open = new Set<ServerResponse>();
  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
    open.add(response);
    response.on('close', () => open.delete(response));
    request.resume();
    request.on('end', () => reached());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    initializeReached,
    serverConfig: { type: 'http' as const, url: `http://127.0.0.1:${port}/mcp` },
    /** Requests the server holds unanswered right now. */
    get openRequests() {
      return open.size;
    },
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
