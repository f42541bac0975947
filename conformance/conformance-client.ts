// The client the MCP conformance suite drives: `conformance-client <server-url>`, scenario in
// MCP_CONFORMANCE_SCENARIO, credentials in MCP_CONFORMANCE_CONTEXT. It uses only the library's
// public API (the package root), as a host would.
import { type AuthConfigInput, type AuthorizationRequest, MemoryOAuthStore } from '../src/credentials.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../src/index.js';

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const serverUrl = process.argv[2];
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;
/** A client ID metadata document URL (SEP-991): used where the authorization server supports it. */
const clientMetadataUrl = 'https://conformance-test.local/client-metadata.json';

/**
 * The user's part of the authorization-code flow, as a browser would do it: the conformance
 * authorization server approves at once and redirects to our redirect URL with the code.
 */
async function followAuthorization(request: AuthorizationRequest) {
  const response = await fetch(request.url, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (location === null) throw new Error(`no redirect from ${request.url.href}`);
  const back = new URL(location);
  const code = back.searchParams.get('code');
  if (code === null) throw new Error('the redirect carried no code');
  const state = back.searchParams.get('state');
  const iss = back.searchParams.get('iss');
  return { code, ...(state !== null && { state }), ...(iss !== null && { iss }) };
}

function authFor(name: string): AuthConfigInput | undefined {
  if (name === 'auth/client-credentials-basic') {
    return {
      type: 'oauth-client-credentials',
      clientId: need('client_id'),
      clientSecret: need('client_secret'),
    };
  }
  if (name === 'auth/client-credentials-jwt') {
    return {
      type: 'oauth-client-credentials',
      clientId: need('client_id'),
      privateKey: need('private_key_pem'),
      ...(typeof context.signing_algorithm === 'string' && { algorithm: context.signing_algorithm }),
    };
  }
  // Renamed in the suite's 0.2 line (SEP-990, enterprise-managed authorization).
  if (name === 'auth/cross-app-access-complete-flow' || name === 'auth/enterprise-managed-authorization') {
    return {
      type: 'oauth-cross-app-access',
      idpTokenUrl: need('idp_token_endpoint'),
      idpClientId: need('idp_client_id'),
      idToken: need('idp_id_token'),
      clientId: need('client_id'),
      clientSecret: need('client_secret'),
    };
  }
  if (name === 'auth/pre-registration') {
    return { type: 'oauth', clientId: need('client_id'), clientSecret: need('client_secret') };
  }
  if (name.startsWith('auth/')) return { type: 'oauth', clientMetadataUrl };
  return undefined;
}

function need(key: string): string {
  const value = context[key];
  if (typeof value !== 'string') throw new Error(`MCP_CONFORMANCE_CONTEXT has no ${key}`);
  return value;
}

function toolCallsOf(value: unknown): { name: string; arguments: Record<string, unknown> }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((call: { name?: unknown; arguments?: unknown }) =>
    typeof call?.name === 'string'
      ? [{ name: call.name, arguments: (call.arguments ?? {}) as Record<string, unknown> }]
      : [],
  );
}

async function main(): Promise<void> {
  if (serverUrl === undefined) throw new Error('usage: conformance-client <server-url>');
  const auth = authFor(scenario);
  const options: McpServerRegistryOptions = {
    mcpServers: { server: { type: 'http', url: serverUrl, ...(auth !== undefined && { auth }) } },
    reconnect: false,
    authorizer: {
      redirectUrl: 'http://localhost:3000/callback',
      store: new MemoryOAuthStore(),
      authorize: followAuthorization,
    },
    // Accept with nothing filled in: the form's defaults apply (SEP-1034).
    elicitation: async () => ({ action: 'accept', content: {} }),
  };
  const servers = new McpServerRegistry(options);
  try {
    const { tools } = await servers.listTools('server');
    const names = tools.map((tool) => tool.name);
    if (names.includes('add_numbers')) await servers.callTool('server', 'add_numbers', { a: 5, b: 3 });
    // The multi-round-trip tools (SEP-2322): each asks for input in-band first, answered by the
    // elicitation handler above, and retried with the server's requestState echoed.
    const named = [
      'test_client_elicitation_defaults',
      'test_reconnection',
      'test-tool',
      'test_mrtr_echo_state',
      'test_mrtr_unrelated',
      'test_mrtr_no_state',
      'test_mrtr_no_result_type',
    ];
    for (const name of named) {
      if (names.includes(name)) await servers.callTool('server', name, {});
    }
    // A tool whose x-mcp-header annotations are valid, beside ones a client must refuse (SEP-2243).
    if (names.includes('valid_tool')) await servers.callTool('server', 'valid_tool', { region: 'us-west1' });
    // The other tool's inputSchema as the client holds it, echoed back verbatim (SEP-1613).
    const focal = tools.find((tool) => tool.name !== 'json_schema_echo');
    if (names.includes('json_schema_echo') && focal !== undefined)
      await servers.callTool('server', 'json_schema_echo', { schema: focal.inputSchema });
    // The calls a scenario names in its context (its arguments, as given).
    for (const call of toolCallsOf(context.toolCalls))
      await servers.callTool('server', call.name, call.arguments);
  } finally {
    await servers.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    process.exit(1);
  },
);
