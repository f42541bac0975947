import { once } from 'node:events';
import { AccessPolicy, ResourceContextProvider } from '../../index.js';
import { createInspector, listenInspector } from '../../inspector.js';
import type { CliCommandRun } from '../cli-command.js';
import { parseIntegerOption } from '../cli-options.js';
import { requirePositionals } from '../require-positionals.js';

/** `mcp-context inspect` (declared, with its options, in ../cli-commands.ts). */
export const runInspect: CliCommandRun = async (context, positionals, values) => {
  requirePositionals(positionals, [] as const);
  const port = parseIntegerOption('port', values.port, { min: 0, max: 65_535 }) ?? 0;
  const config = await context.config();
  const servers = await context.servers();
  const provider = new ResourceContextProvider({
    servers,
    attachments: await context.store(),
    policy: new AccessPolicy({
      bindings: config.bindings,
      ...(config.agents && { agents: config.agents }),
    }),
    budget: config.budget ?? { maxTokens: 8000 },
    ...(config.skills !== undefined && { skills: config.skills }),
  });
  const inspector = createInspector(provider, servers, {
    content: values.content === true,
    pinning: values.pinning === true,
  });
  const listening = await listenInspector(inspector, port);
  try {
    // Connect every server once so the page shows capabilities (or why a connection failed).
    for (const name of servers.serverNames) servers.getServerCapabilities(name).catch(() => undefined);
    if (context.json) context.writeJson({ url: listening.url, token: inspector.token });
    else {
      context.write(`inspector at ${listening.url} (loopback only; Ctrl-C stops it)\n`);
      context.write(`from elsewhere, send the token: ${listening.url}?token=${inspector.token}\n`);
    }
    await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
    return 0;
  } finally {
    await listening.close();
    provider.dispose();
  }
};
