import { Agent, request } from 'node:http';

/**
 * A host's HTTP client for the service: JSON over loopback, connections kept alive (one per
 * request in flight, up to `maxSockets`), the answer read to its end and parsed.
 */
export function createJsonClient(baseUrl: string, maxSockets = 64) {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    post(path: string, body: unknown): Promise<unknown> {
      return send('POST', path, JSON.stringify(body));
    },
    get(path: string): Promise<string> {
      return send('GET', path, undefined, true) as Promise<string>;
    },
    close(): void {
      agent.destroy();
    },
  };

  function send(method: string, path: string, payload?: string, raw = false): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          hostname,
          port,
          path,
          method,
          agent,
          headers:
            payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (response.statusCode !== 200) {
              reject(new Error(`${method} ${path}: ${response.statusCode} ${text.slice(0, 500)}`));
              return;
            }
            resolve(raw ? text : JSON.parse(text));
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }
}
