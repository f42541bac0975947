import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuthorizationAnswer, credentialKeyEnv } from '../../credentials.js';
import { ContextError } from '../../index.js';
import type { CliCommandRun } from '../cli-command.js';
import { requirePositionals } from '../require-positionals.js';
import { UsageError } from '../usage-error.js';

/** How long `login` waits for the browser to come back. */
const waitMs = 5 * 60_000;

/** `mcp-context login` (declared, with its options, in ../cli-commands.ts). */
export const runLogin: CliCommandRun = async (context, positionals, values) => {
  const [server] = requirePositionals(positionals, ['server'] as const);
  if (context.oauthStore() === undefined) {
    throw new UsageError(`set ${credentialKeyEnv} (a 32-byte key, e.g. from generateCredentialKey()) first`);
  }
  const config = await context.config();
  const entry = config.mcpServers[server];
  if (entry === undefined) {
    throw new ContextError('UNKNOWN_SERVER', `no MCP server named "${server}" is configured`, {
      field: 'server',
      value: server,
    });
  }
  if (!('url' in entry) || entry.auth?.type !== 'oauth') {
    throw new UsageError(`server "${server}" does not use OAuth authorization (auth.type "oauth")`);
  }
  const principal = values.principal;
  const callback = await startCallbackServer();
  const servers = context.createRegistry(config, callback.url, async (request) => {
    context.writeError(`open this URL to authorize "${server}":\n`);
    context.write(`${request.url.href}\n`);
    return callback.answer;
  });
  try {
    await servers.getServerCapabilities(server, principal === undefined ? {} : { principal });
    const who = principal === undefined ? '' : ` as principal "${principal}"`;
    context.writeError(`logged in to "${server}"${who}; tokens are in ${context.credentialsPath()}\n`);
    return 0;
  } finally {
    await servers.close();
    await callback.close();
  }
};

/** `mcp-context logout` (declared, with its options, in ../cli-commands.ts). */
export const runLogout: CliCommandRun = async (context, positionals, values) => {
  const [server] = requirePositionals(positionals, ['server'] as const);
  const store = context.oauthStore();
  if (store === undefined) throw new UsageError(`set ${credentialKeyEnv} first`);
  const principal = values.principal;
  await store.delete({ server, ...(principal !== undefined && { principal }) });
  context.writeError(`logged out of "${server}"\n`);
  return 0;
};

// --- Internal helpers ---

/** A one-shot redirect target on 127.0.0.1 (RFC 8252 loopback redirect): resolves with the code. */
async function startCallbackServer(): Promise<{
  url: string;
  answer: Promise<AuthorizationAnswer>;
  close(): Promise<void>;
}> {
  let settle: (answer: AuthorizationAnswer) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const answer = new Promise<AuthorizationAnswer>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const code = url.searchParams.get('code');
    if (url.pathname !== '/callback' || code === null) {
      const error = url.searchParams.get('error');
      response.writeHead(400, { 'content-type': 'text/plain' }).end('no authorization code\n');
      if (error !== null) fail(new Error(`the authorization server answered: ${error}`));
      return;
    }
    const state = url.searchParams.get('state');
    const iss = url.searchParams.get('iss');
    response.writeHead(200, { 'content-type': 'text/plain' }).end('Authorized. You can close this window.\n');
    settle({ code, ...(state !== null && { state }), ...(iss !== null && { iss }) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setTimeout(() => fail(new Error('no answer from the browser within 5 minutes')), waitMs);
  timer.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
