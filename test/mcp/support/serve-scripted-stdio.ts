import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createScriptedServer } from './scripted-server.js';

/**
 * A scripted server over stdio for tests that spawn a child process. Its options arrive as
 * JSON in SCRIPTED_SERVER_OPTIONS, passed explicitly in the server config's `env`.
 */
const options = JSON.parse(process.env.SCRIPTED_SERVER_OPTIONS ?? '{}');
const server = createScriptedServer(options);
await server.connect(new StdioServerTransport());
process.stdin.once('end', () => {
  void server.close();
});
