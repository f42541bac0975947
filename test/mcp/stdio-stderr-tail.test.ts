import { describe, expect, it, onTestFinished } from 'vitest';
import type { ContextError } from '../../src/errors.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';

// A stdio server that exits before it answers usually says why on stderr: CONNECT_FAILED says
// it too, redacted of the server's secrets, its last words only.
async function failedConnect(
  script: string,
  env?: Record<string, string>,
): Promise<ContextError | undefined> {
  const servers = new McpServerRegistry({
    reconnect: false,
    mcpServers: { tool: { command: process.execPath, args: ['-e', script], ...(env && { env }) } },
  });
  onTestFinished(() => servers.close());
  return servers.listResources('tool').then(
    () => undefined,
    (error: unknown) => error as ContextError,
  );
}

describe("a stdio server's stderr in a failed connect", () => {
  it('names what the server wrote before it exited', async () => {
    const failure = await failedConnect(
      "process.stderr.write('fatal: GITHUB_TOKEN is not set\\n'); process.exit(3)",
    );
    expect(failure).toMatchObject({ code: 'CONNECT_FAILED', server: 'tool' });
    expect(failure?.message).toMatch(/its stderr ended with: fatal: GITHUB_TOKEN is not set$/);
  });

  it("never shows the server's configured secrets, and keeps only its last words on one line", async () => {
    const secret = 'sk-live-0123456789abcdef';
    const failure = await failedConnect(
      "process.stderr.write('x'.repeat(100000) + '\\n\\u001b[31mkey ' + process.env.API_KEY + ' refused\\u0007\\n'); process.exit(1)",
      { API_KEY: secret },
    );
    expect(failure?.code).toBe('CONNECT_FAILED');
    expect(failure?.message).not.toContain(secret);
    expect(failure?.message).toMatch(/its stderr ended with: …x+ \[31mkey \S*redacted\S* refused$/);
    expect(failure?.message.length).toBeLessThan(600);
  });

  it('says nothing of stderr when the server wrote none', async () => {
    const failure = await failedConnect('process.exit(2)');
    expect(failure?.code).toBe('CONNECT_FAILED');
    expect(failure?.message).not.toContain('stderr');
  });
});
