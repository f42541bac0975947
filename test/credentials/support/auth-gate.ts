import { randomBytes } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { onTestFinished } from 'vitest';

export interface AuthGate {
  /** The gate's MCP endpoint (`http(s)://127.0.0.1:PORT/mcp`). */
  readonly url: string;
  /** The gate's OAuth token endpoint. */
  readonly tokenUrl: string;
  /** Requests that passed the check and reached the fixture, and those refused. */
  readonly admitted: number;
  readonly refused: number;
  /** Access tokens the token endpoint issued. */
  readonly issuedTokens: readonly string[];
  /** Subject CN of each client certificate presented (https gates). */
  readonly clientCertificates: readonly string[];
}

export interface AuthGateOptions {
  /** Where admitted requests go: the fixture's `http://127.0.0.1:PORT/mcp`. */
  readonly target: string;
  /** Decides from the request whether it may pass. */
  readonly admit: (request: IncomingMessage, gate: AuthGate) => boolean;
  /** Client credentials the token endpoint accepts. */
  readonly oauthClient?: { readonly id: string; readonly secret: string };
  /** Serve HTTPS with these options (certificates; `requestCert` for mTLS). */
  readonly tls?: ServerOptions;
}

/**
 * An HTTP layer in front of the fixture, as a real deployment puts an API gateway in front of an
 * MCP server: it checks credentials, forwards what passes (streaming both ways, so SSE works) and
 * answers 401 otherwise — with a body that echoes every request header, the way careless proxies
 * do, so tests can prove that no credential survives into an error. Closed when the test ends.
 */
export async function startAuthGate(options: AuthGateOptions): Promise<AuthGate> {
  const state = { admitted: 0, refused: 0, issuedTokens: [] as string[], clientCertificates: [] as string[] };
  const target = new URL(options.target);
  let gate: AuthGate;
  const handle = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const certificate = (incoming.socket as TLSSocket).getPeerCertificate?.();
    if (certificate?.subject?.CN) state.clientCertificates.push(String(certificate.subject.CN));
    const path = new URL(incoming.url ?? '/', 'http://gate').pathname;
    if (path === '/token') return issueToken(incoming, outgoing, options, state);
    if (path !== '/mcp') return outgoing.writeHead(404).end('not found');
    if (!options.admit(incoming, gate)) {
      state.refused++;
      // A careless gateway: the refusal echoes the request's headers.
      return outgoing
        .writeHead(401, { 'content-type': 'text/plain' })
        .end(`unauthorized; you sent ${JSON.stringify(incoming.headers)}`);
    }
    state.admitted++;
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: incoming.method,
        headers: incoming.headers,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  };
  const server = options.tls ? createHttpsServer(options.tls, handle) : createHttpServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  gate = {
    url: `${base}/mcp`,
    tokenUrl: `${base}/token`,
    get admitted() {
      return state.admitted;
    },
    get refused() {
      return state.refused;
    },
    issuedTokens: state.issuedTokens,
    clientCertificates: state.clientCertificates,
  };
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return gate;
}

// --- Internal helpers ---

/** RFC 6749 §4.4: client credentials in HTTP Basic auth, form-encoded grant. */
function issueToken(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  options: AuthGateOptions,
  state: { issuedTokens: string[] },
): void {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const basic = /^Basic (.+)$/.exec(incoming.headers.authorization ?? '')?.[1];
    const [id, secret] = Buffer.from(basic ?? '', 'base64')
      .toString('utf8')
      .split(':')
      .map((part) => decodeURIComponent(part));
    const client = options.oauthClient;
    if (incoming.method !== 'POST' || form.get('grant_type') !== 'client_credentials') {
      outgoing
        .writeHead(400, { 'content-type': 'application/json' })
        .end('{"error":"unsupported_grant_type"}');
      return;
    }
    if (!client || id !== client.id || secret !== client.secret) {
      // Echoes what it got, secret included, as a careless server might.
      outgoing
        .writeHead(401, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ error: 'invalid_client', error_description: `bad credentials ${id}:${secret}` }),
        );
      return;
    }
    const token = `at-${randomBytes(16).toString('hex')}`;
    state.issuedTokens.push(token);
    outgoing
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
  });
}
