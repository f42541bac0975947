import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { startOAuthServer, testUserHeader } from '../../fixtures/index.js';
import { generateCredentialKey } from '../../src/credentials/credential-key.js';
import { startCliWorkspace } from './support/cli-workspace.js';

describe('mcp-context login / logout', () => {
  it('login prints the URL, takes the code at its 127.0.0.1 redirect, and stores the tokens encrypted; servers shows the state; logout forgets them', async () => {
    const server = await startOAuthServer();
    onTestFinished(() => server.close());
    const workspace = await startCliWorkspace();
    workspace.writeConfig({
      mcpServers: { notes: { type: 'http', url: server.url, auth: { type: 'oauth' } } },
    });
    const env = { MCP_CONTEXT_CREDENTIAL_KEY: generateCredentialKey() };

    const login = spawn(process.execPath, [inject('cliEntry'), 'login', 'notes'], {
      cwd: workspace.directory,
      env: { ...process.env, ...env, NO_COLOR: '' },
    });
    onTestFinished(() => {
      login.kill();
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      login.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((candidate) => candidate.startsWith('http'));
        if (line !== undefined) resolve(line);
      });
      login.once('exit', (code) => reject(new Error(`login exited ${code} before printing a URL`)));
    });
    const exited = new Promise<number | null>((resolve) => login.once('exit', resolve));
    // The user's browser: signs in, and follows the redirect to the CLI's loopback listener.
    const landed = await fetch(url, { headers: { [testUserHeader]: 'ada' } });
    expect(await landed.text()).toContain('Authorized');
    expect(await exited).toBe(0);

    const credentials = readFileSync(join(workspace.directory, 'mcp-context.credentials.json'), 'utf8');
    expect(credentials).not.toContain('at-');
    const before = await workspace.run(['servers', '--json'], { env });
    expect(JSON.parse(before.stdout)).toEqual([
      expect.objectContaining({ server: 'notes', auth: 'oauth: logged in' }),
    ]);
    const read = await workspace.run(['read', 'notes', 'private://notes'], { env });
    expect(read.stdout).toContain('notes of ada');
    expect(server.log.authorizations).toHaveLength(1);

    expect((await workspace.run(['logout', 'notes'], { env })).code).toBe(0);
    const after = await workspace.run(['servers', '--json'], { env });
    expect(JSON.parse(after.stdout)).toEqual([
      expect.objectContaining({ server: 'notes', auth: 'oauth: not logged in', state: 'error' }),
    ]);
    expect(JSON.stringify(JSON.parse(after.stdout))).toContain('AUTH_REQUIRED');
  });

  it('servers lists a per-user server without probing it (it has a session per principal, none for the operator)', async () => {
    const server = await startOAuthServer();
    onTestFinished(() => server.close());
    const workspace = await startCliWorkspace();
    workspace.writeConfig({
      mcpServers: { mine: { type: 'http', url: server.url, auth: { type: 'oauth', perUser: true } } },
    });
    const env = { MCP_CONTEXT_CREDENTIAL_KEY: generateCredentialKey() };
    const listed = await workspace.run(['servers', '--json'], { env });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ server: 'mine', state: 'idle', auth: 'oauth: per-user' }),
    ]);
    expect(server.log.requests).toEqual([]);
  });
});
