import { startGitNexusFixture } from '../../../fixtures/index.js';

/** Serves the GitNexus-shaped fixture over Streamable HTTP on 127.0.0.1 until interrupted. */
export async function serveFixture(port: number, write: (text: string) => void): Promise<void> {
  const fixture = await startGitNexusFixture({ transport: 'http', port });
  write(`GitNexus fixture: ${fixture.url}  (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await fixture.close();
}
