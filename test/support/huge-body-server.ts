import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How replies travel: a JSON body or one SSE event per POST (Streamable HTTP), or as events of
 * the GET stream a legacy HTTP+SSE client opened (`legacy-sse`: POSTs go to the endpoint the
 * stream announced and are answered 202).
 */
export type HugeBodyFormat = 'json' | 'event-stream' | 'legacy-sse';

/**
 * A hostile MCP server on 127.0.0.1 (Streamable HTTP: stateless, no session id, no GET stream):
 * it answers initialize, resources/list and a read of `small://x` properly, and a read of any
 * other URI with one text content of `totalBytes`, generated and written in 64 KiB chunks as
 * the socket takes them (never held whole) — as a JSON body or as one SSE event. It counts
 * what it managed to write of each huge body before the client stopped reading.
 */
export async function startHugeBodyServer(options: { totalBytes: number; format: HugeBodyFormat }) {
  const written: number[] = [];
  const ends = new EventEmitter();
  // legacy-sse: each GET stream by its session id, named in the endpoint it announces.
  const streams = new Map<string, ServerResponse>();
  const http = createServer((request, response) => {
    if (options.format === 'legacy-sse' && request.method === 'GET') {
      const session = String(streams.size + 1);
      streams.set(session, response);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`event: endpoint\ndata: /messages?session=${session}\n\n`);
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    void readJson(request).then((message) => {
      const stream = streams.get(new URL(request.url ?? '/', 'http://x').searchParams.get('session') ?? '');
      if (options.format !== 'legacy-sse') answer(message, response);
      else if (stream === undefined) response.writeHead(404).end();
      else {
        response.writeHead(202).end();
        answer(message, stream);
      }
    });
  });

  const answer = (
    message: { id?: unknown; method?: string; params?: { uri?: string } },
    response: ServerResponse,
  ) => {
    if (message.id === undefined) {
      if (options.format !== 'legacy-sse') response.writeHead(202).end();
      return;
    }
    const reply = (result: unknown) =>
      respond(response, options.format, { jsonrpc: '2.0', id: message.id, result });
    if (message.method === 'initialize') {
      reply({
        protocolVersion: '2025-06-18',
        capabilities: { resources: {} },
        serverInfo: { name: 'huge-body', version: '1.0.0' },
      });
    } else if (message.method === 'resources/list') {
      reply({ resources: [{ uri: 'small://x', name: 'x' }] });
    } else if (message.method === 'resources/read' && message.params?.uri === 'small://x') {
      reply({ contents: [{ uri: 'small://x', mimeType: 'text/plain', text: 'small and fine' }] });
    } else if (message.method === 'resources/read') {
      void streamHuge(response, message.id, String(message.params?.uri)).then((bytes) => {
        written.push(bytes);
        ends.emit('ended', bytes);
      });
    } else {
      respond(response, options.format, {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      });
    }
  };

  const streamHuge = async (response: ServerResponse, id: unknown, uri: string): Promise<number> => {
    const eventStream = options.format !== 'json';
    if (options.format !== 'legacy-sse') {
      response.writeHead(200, { 'content-type': eventStream ? 'text/event-stream' : 'application/json' });
    }
    const head = `${eventStream ? 'event: message\ndata: ' : ''}{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"contents":[{"uri":${JSON.stringify(uri)},"mimeType":"text/plain","text":"`;
    const tail = `"}]}}${eventStream ? '\n\n' : ''}`;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let bytes = 0;
    let closed = false;
    response.on('close', () => {
      closed = true;
    });
    const write = async (data: Buffer | string) => {
      bytes += Buffer.byteLength(data);
      if (!response.write(data)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            response.off('drain', done);
            response.off('close', done);
            resolve();
          };
          response.on('drain', done);
          response.on('close', done);
        });
      }
    };
    await write(head);
    while (!closed && bytes < options.totalBytes) await write(chunk);
    // A legacy GET stream carries every reply of its session: it stays open.
    if (!closed && options.format === 'legacy-sse') response.write(tail);
    else if (!closed) response.end(tail);
    return bytes;
  };

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    /** Bytes written of each huge body, once its stream has ended (client gone or body done). */
    written,
    /** Resolves with the bytes written of the next huge body to end. */
    nextBodyEnded: (): Promise<number> => once(ends, 'ended').then(([bytes]) => bytes as number),
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

// --- Internal helpers ---

async function readJson(request: IncomingMessage) {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8'));
}

function respond(response: ServerResponse, format: HugeBodyFormat, message: unknown): void {
  if (format === 'legacy-sse') {
    response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  } else if (format === 'event-stream') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  } else {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(message));
  }
}
