import type { BenchEra } from './bench-era.js';
import { makeText } from './bulk-server.js';
import { startStatelessResourceHttpServer } from './stateless-resource-http-server.js';

export interface SteadyChatServer {
  readonly url: string;
  readonly era: BenchEra;
  /** The pipeline's pins. */
  readonly pins: readonly string[];
  /** A conversation's notes, of `noteBytes` each unless `bytes` says otherwise. */
  notes(conversation: string, bytes?: number): string[];
  /** A message attachment no turn has read before. */
  attachment(key: string): string;
  close(): Promise<void>;
}

/**
 * A host's chat over Streamable HTTP on 127.0.0.1 (stateless: one SDK server per request):
 * `pins` pipeline pins of `pinBytes`, `notes` conversation notes of `noteBytes` each (or of the
 * size a conversation's notes were asked with), and a new message attachment of
 * `attachmentBytes` for every turn, each body generated from its URI (deterministic, the bulk
 * server's prose and code); in either era (see BenchEra).
 */
export async function startSteadyChatServer(
  sizes: {
    pins: number;
    pinBytes: number;
    notes: number;
    noteBytes: number;
    attachmentBytes: number;
  },
  era: BenchEra = '2025-11-25',
): Promise<SteadyChatServer> {
  const pins = Array.from({ length: sizes.pins }, (_, index) => `chat://pin/${index}`);
  const pinBodies = new Map(pins.map((uri, index) => [uri, makeText(sizes.pinBytes, index)]));
  const bodyOf = (uri: string): string => {
    const pinned = pinBodies.get(uri);
    if (pinned !== undefined) return pinned;
    const seed = [...uri].reduce((hash, char) => (hash * 31 + (char.codePointAt(0) ?? 0)) % 1_000_003, 7);
    // A note's URI carries its size: chat://note/<bytes>/<conversation>/<index>.
    const noteBytes = uri.startsWith('chat://note/') ? Number(uri.split('/')[3]) : undefined;
    return makeText(noteBytes ?? sizes.attachmentBytes, seed);
  };
  const http = await startStatelessResourceHttpServer('chat', pins, bodyOf, era);
  return {
    url: http.url,
    era,
    pins,
    notes: (conversation, bytes = sizes.noteBytes) =>
      Array.from({ length: sizes.notes }, (_, index) => `chat://note/${bytes}/${conversation}/${index}`),
    attachment: (key) => `chat://message/${key}`,
    close: () => http.close(),
  };
}
