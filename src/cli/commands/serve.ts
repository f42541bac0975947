import { once } from 'node:events';
import type { CliCommandRun } from '../cli-command.js';
import { parseIntegerOption } from '../cli-options.js';
import { requirePositionals } from '../require-positionals.js';

/** A sidecar needs a port its host can be told; 0 still picks a free one. */
const defaultPort = 8080;

/** `mcp-context serve` (declared, with its options, in ../cli-commands.ts). */
export const runServe: CliCommandRun = async (context, positionals, values) => {
  requirePositionals(positionals, [] as const);
  const port = parseIntegerOption('port', values.port, { min: 0, max: 65_535 }) ?? defaultPort;
  const config = await context.config();
  // Loaded only by this command: the other commands start no faster or slower for the service.
  const { startService } = await import('../../service/start-service.js');
  const service = await startService({
    config,
    store: await context.store(),
    registryOptions: context.authorizerOptions(`http://127.0.0.1:${port}/oauth/callback`),
    ...(values.host !== undefined && { host: values.host }),
    port,
  });
  if (context.json) context.write(`${JSON.stringify({ url: service.url })}\n`);
  else context.write(`mcp-context serve: listening on ${service.url} (SIGTERM or Ctrl-C drains and stops)\n`);
  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  await service.close();
  return 0;
};
