import { startGitNexusFixture } from '../../../fixtures/index.js';
import type { CliCommandRun } from '../cli-command.js';
import { parseIntegerOption } from '../cli-options.js';
import { requirePositionals } from '../require-positionals.js';

/** `mcp-context fixture serve` (declared, with its options, in ../cli-commands.ts). */
export const runFixtureServe: CliCommandRun = async (context, positionals, values) => {
  requirePositionals(positionals, [] as const);
  const port = parseIntegerOption('port', values.port, { min: 0, max: 65_535 }) ?? 0;
  await serveFixture(port, (url) => {
    if (context.json) context.writeJson({ url });
    else context.write(`GitNexus fixture: ${url}  (Ctrl-C to stop)\n`);
  });
  return 0;
};

/** Serves the GitNexus-shaped fixture over Streamable HTTP on 127.0.0.1 until interrupted. */
export async function serveFixture(port: number, onListening: (url: string) => void): Promise<void> {
  const fixture = await startGitNexusFixture({ transport: 'http', port });
  onListening(fixture.url ?? '');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await fixture.close();
}
