import type { BenchEra } from './bench-era.js';
import { makeText } from './bulk-server.js';
import { startStatelessResourceHttpServer } from './stateless-resource-http-server.js';

export interface BulkHttpServer {
  readonly url: string;
  readonly era: BenchEra;
  readonly uris: readonly string[];
  /** resources/read requests answered so far. */
  reads(): number;
  close(): Promise<void>;
}

/**
 * The bulk server's resources (`count` × about `bytes`, the same deterministic text) over
 * Streamable HTTP on 127.0.0.1 (stateless: one SDK server per request), for benchmarks that
 * measure what a real transport adds; in either era (`era`, default 2025-11-25).
 */
export async function startBulkHttpServer(
  count: number,
  bytes: number,
  options: { generateOnRead?: boolean; era?: BenchEra } = {},
): Promise<BulkHttpServer> {
  const uris = Array.from({ length: count }, (_, index) => `bulk://doc/${index}`);
  // Generating on read keeps the server from holding every body (many distinct resources).
  const bodies = options.generateOnRead
    ? undefined
    : new Map(uris.map((uri, index) => [uri, makeText(bytes, index)]));
  const bodyOf = (uri: string) =>
    bodies?.get(uri) ?? makeText(bytes, Number(uri.slice(uri.lastIndexOf('/') + 1)));
  let reads = 0;
  const http = await startStatelessResourceHttpServer(
    'bulk',
    uris,
    (uri) => {
      reads++;
      return bodyOf(uri);
    },
    options.era,
  );
  return { url: http.url, era: http.era, uris, reads: () => reads, close: () => http.close() };
}
