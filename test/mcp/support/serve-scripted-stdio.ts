import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createScriptedServer } from './scripted-server.js';

/**
 * A scripted server over stdio for tests that spawn a child process. Its options arrive as
 * JSON in SCRIPTED_SERVER_OPTIONS, passed explicitly in the server config's `env`. Contents too
 * large for an environment variable are made here: SCRIPTED_BLOBS maps a URI to a byte count,
 * read as a blob of that many bytes.
 */
const options = JSON.parse(process.env.SCRIPTED_SERVER_OPTIONS ?? '{}');
const blobs: Record<string, number> = JSON.parse(process.env.SCRIPTED_BLOBS ?? '{}');
const contents = { ...options.contents };
for (const [uri, bytes] of Object.entries(blobs)) {
  const blob = Buffer.alloc(bytes, 0x5a).toString('base64');
  contents[uri] = [{ uri, mimeType: 'application/octet-stream', blob }];
}
const server = createScriptedServer({ ...options, contents });
await server.connect(new StdioServerTransport());
process.stdin.once('end', () => {
  void server.close();
});
