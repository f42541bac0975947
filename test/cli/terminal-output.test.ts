import { describe, expect, it, onTestFinished } from 'vitest';
import { startScriptedHttp } from '../mcp/support/scripted-server.js';
import { startCliWorkspace } from './support/cli-workspace.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these characters
const terminalControl = /[\u001b\u0007\u009b\u202e]/;
const titleEscape = '\u001b]0;pwned\u0007';
const clearScreen = '\u001b[2J\u001b[H';

describe('terminal output of what a server sent', () => {
  it('read, resources and --json write no terminal escapes', async () => {
    const evil = await startScriptedHttp({
      resources: [{ uri: 'evil://doc', name: `doc${titleEscape}`, description: `desc\u009b2J\u202e` }],
      contents: {
        'evil://doc': [{ uri: 'evil://doc', mimeType: 'text/plain', text: `hello${clearScreen}world` }],
      },
    });
    onTestFinished(() => evil.close());
    const workspace = await startCliWorkspace();
    workspace.writeConfig({ mcpServers: { evil: { type: 'http', url: `${evil.origin}/mcp` } } });

    const read = await workspace.run(['read', 'evil', 'evil://doc']);
    expect(read.code).toBe(0);
    expect(read.stdout).not.toContain('\u001b');
    expect(read.stdout).toContain(String.raw`hello\u{1b}[2J\u{1b}[Hworld`);

    const listed = await workspace.run(['resources', 'evil']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('doc');
    expect(listed.stdout).not.toMatch(terminalControl);

    const json = await workspace.run(['resources', 'evil', '--json']);
    expect(json.stdout).not.toMatch(terminalControl);
    expect(json.stdout).toContain(String.raw`desc\u009b2J`);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain('desc\u009b2J\u202e');
  });
});
