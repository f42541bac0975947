import type { OAuthStore } from '../../credentials.js';
import type { McpServerConfigInput, McpServerRegistry, ServerStatus } from '../../index.js';
import type { CliCommandRun } from '../cli-command.js';
import { createProgress } from '../create-progress.js';
import { paintStatus } from '../create-style.js';
import { formatTable } from '../format-table.js';

/** The registry's status of one server, plus what `servers` counted that the registry does not keep. */
export type ServerReport = ServerStatus & {
  readonly resourceTemplateCount?: number;
  /** How the server is authenticated, and for OAuth whether `login` has stored tokens (never a token). */
  readonly auth: string;
};

/** `mcp-context servers` (declared, with its options, in ../cli-commands.ts). */
export const runListServers: CliCommandRun = async (context) => {
  const servers = await context.servers();
  const progress = createProgress();
  progress.update(`connecting to ${servers.serverNames.length} server(s)…`);
  const config = await context.config();
  const store = context.oauthStore();
  const statuses = await Promise.all(
    servers.serverNames.map(async (name) => ({
      ...(await probeServer(servers, name)),
      auth: await authState(config.mcpServers[name], name, store),
    })),
  );
  progress.done();
  if (context.json) {
    context.writeJson(statuses);
  } else if (statuses.length === 0) {
    const file = context.configPath;
    context.write(
      file === undefined
        ? 'no servers configured: no config file (./mcp-context.json, or --config FILE) with mcpServers\n'
        : `no servers configured (mcpServers in ${file})\n`,
    );
  } else {
    const style = context.style;
    const rows = statuses.map((status) => [
      status.server,
      status.state,
      status.transport ?? status.configuredTransport,
      summarizeCapabilities(status.capabilities),
      status.resourceCount ?? '-',
      status.resourceTemplateCount ?? '-',
      status.promptCount ?? '-',
      status.auth,
      status.lastError ? `${status.lastError.code}: ${status.lastError.message}` : '',
    ]);
    const header = [
      'server',
      'state',
      'transport',
      'capabilities',
      'resources',
      'templates',
      'prompts',
      'auth',
      'last error',
    ];
    context.write(
      `${formatTable(header, rows, (text, row, column) => {
        if (row < 0) return style.bold(text);
        if (column === 1) return paintStatus(style, text);
        return column === 8 ? style.red(text) : text;
      })}\n`,
    );
  }
  // A status check that finds a server down has found a failure: scripts can act on it.
  // A per-user server is idle for the operator: not probed, not down.
  const up = (status: ServerReport) =>
    status.state === 'connected' || (servers.isPerUser(status.server) && status.state === 'idle');
  return statuses.every(up) ? 0 : 1;
};

// --- Internal helpers ---

/**
 * Connects and lists everything the server offers, so the registry's status has its counts;
 * failures are not thrown: the registry records them as the status's last error.
 */
async function probeServer(servers: McpServerRegistry, name: string): Promise<Omit<ServerReport, 'auth'>> {
  // A per-user server has a session per principal and none for the operator: nothing to probe.
  const whole = servers.statuses().find((status) => status.server === name);
  if (servers.isPerUser(name) && whole !== undefined) return whole;
  let resourceTemplateCount: number | undefined;
  const capabilities = await servers.getServerCapabilities(name).catch(() => undefined);
  if (capabilities) {
    const ignore = () => undefined;
    await Promise.all([
      capabilities.resources && servers.listResources(name, { all: true }).catch(ignore),
      capabilities.resources &&
        servers
          .listResourceTemplates(name, { all: true })
          .then((result) => {
            resourceTemplateCount = result.resourceTemplates.length;
          })
          .catch(ignore),
      capabilities.prompts && servers.listPrompts(name, { all: true }).catch(ignore),
    ]);
  }
  return { ...servers.status(name), ...(resourceTemplateCount !== undefined && { resourceTemplateCount }) };
}

/** `none`, the credential kind, or for OAuth: `oauth: logged in` / `oauth: not logged in` / `oauth: per-user`. */
async function authState(
  config: McpServerConfigInput | undefined,
  server: string,
  store: OAuthStore | undefined,
): Promise<string> {
  const auth = config !== undefined && 'url' in config ? config.auth : undefined;
  if (auth === undefined) return 'none';
  if (auth.type !== 'oauth') return auth.type;
  if (auth.perUser) return 'oauth: per-user';
  const tokens = store === undefined ? undefined : await store.get({ server }, 'tokens');
  return tokens === undefined ? 'oauth: not logged in' : 'oauth: logged in';
}

/** `resources(subscribe,listChanged) prompts tools` */
function summarizeCapabilities(capabilities: ServerStatus['capabilities']): string {
  if (!capabilities) return '-';
  const names = Object.entries(capabilities).map(([name, value]) => {
    const flags =
      typeof value === 'object' && value !== null
        ? Object.entries(value)
            .filter(([, flag]) => flag === true)
            .map(([flag]) => flag)
        : [];
    return flags.length > 0 ? `${name}(${flags.join(',')})` : name;
  });
  return names.join(' ') || '-';
}
