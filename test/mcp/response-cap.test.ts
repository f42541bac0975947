import { describe, expect, it, onTestFinished } from 'vitest';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { startHugeBodyServer } from '../support/huge-body-server.js';

const megabyte = 1024 * 1024;

describe.each(['json', 'event-stream', 'legacy-sse'] as const)(
  'a read whose HTTP body is 200 MB (%s)',
  (format) => {
    it('stops reading past maxResponseBytes: LIMIT_EXCEEDED for that read, and the next read is answered', async () => {
      const server = await startHugeBodyServer({ totalBytes: 200 * megabyte, format });
      const servers = new McpServerRegistry({
        mcpServers: { huge: { type: format === 'legacy-sse' ? 'sse' : 'http', url: server.url } },
        maxReadBytes: megabyte,
        maxResponseBytes: 3 * megabyte,
      });
      onTestFinished(async () => {
        await servers.close();
        await server.close();
      });

      const ended = server.nextBodyEnded();
      await expect(servers.readResource('huge', 'huge://body')).rejects.toMatchObject({
        code: 'LIMIT_EXCEEDED',
        server: 'huge',
        field: 'maxResponseBytes',
      });
      // What the server got onto the socket before the client let go: the cap plus what the
      // kernel's and the HTTP client's buffers hold, nowhere near the 200 MB body.
      const bytes = await ended;
      expect(bytes).toBeLessThan(40 * megabyte);

      const small = await servers.readResource('huge', 'small://x');
      expect(small.contents[0]).toMatchObject({ text: 'small and fine' });
    });
  },
);

describe('maxResponseBytes', () => {
  it('defaults to twice maxReadBytes plus 1 MiB (base64 and JSON escaping, and the envelope)', () => {
    const servers = new McpServerRegistry({ mcpServers: {}, maxReadBytes: 4 * megabyte });
    expect(servers.maxResponseBytes).toBe(9 * megabyte);
  });

  it('may not be below maxReadBytes', () => {
    expect(
      () => new McpServerRegistry({ mcpServers: {}, maxReadBytes: 4 * megabyte, maxResponseBytes: megabyte }),
    ).toThrow(/maxResponseBytes/);
  });
});
