import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

// The whole suite (every client scenario) runs as its own CI step, `npm run conformance`
// (.ci/run); here two scenarios keep the runner, the Node 20 loader hook and the client program
// honest on every test run.
describe('the MCP conformance suite drives conformance/conformance-client.ts', () => {
  it('passes initialize and the default authorization-code flow', { timeout: 120_000 }, async () => {
    const { stdout } = await run(process.execPath, [
      'conformance/run-conformance.mjs',
      'initialize',
      'auth/metadata-default',
    ]);
    expect(stdout).toMatch(/^pass {2}initialize /m);
    expect(stdout).toMatch(/^pass {2}auth\/metadata-default /m);
    expect(stdout).toContain('conformance 2/2 client scenarios passed');
  });
});
