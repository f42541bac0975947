import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Inspector } from './create-inspector.js';

export interface ListeningInspector {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string;
  readonly port: number;
  /** Stops the listener and drops open event streams. */
  close(): Promise<void>;
}

/** Serves an inspector on 127.0.0.1 only (port 0 picks a free one). */
export async function listenInspector(inspector: Inspector, port = 0): Promise<ListeningInspector> {
  const server = createServer(inspector.handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/`,
    port: bound,
    close: async () => {
      inspector.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
