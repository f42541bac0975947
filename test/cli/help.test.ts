import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { commands } from '../../src/cli/cli-commands.js';
import { cliOptions, globalOptions } from '../../src/cli/cli-options.js';
import { runBuiltCli as runCli } from './support/run-built-cli.js';

function emptyDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-help-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** `--max-tokens N` or `--skill`: an option as its usage lists it, from its one declaration. */
function listed(name: keyof typeof cliOptions): RegExp {
  const option: { value?: string; description: string } = cliOptions[name];
  const flag = `--${name}${option.value !== undefined ? ` ${option.value}` : ''}`;
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^  (?:-h, )?${escaped(flag)} +${escaped(option.description)}$`, 'm');
}

const groups = [
  ...new Set(commands.flatMap((command) => (command.name.includes(' ') ? [command.name.split(' ')[0]] : []))),
] as string[];

describe('mcp-context --help, from each command’s one declaration of its options', () => {
  it.each(commands.map((command) => [command.name, command] as const))(
    '%s --help (and -h) prints its usage with every option it takes, exit 0',
    async (name, command) => {
      const directory = emptyDirectory();
      const words = name.split(' ');
      for (const flag of ['--help', '-h']) {
        const help = await runCli([...words, flag], directory);
        expect(help.code, `${name} ${flag}`).toBe(0);
        expect(help.stdout).toMatch(new RegExp(`^usage: mcp-context ${name}( |\\n)`));
        expect(help.stdout).toContain(command.summary);
        for (const option of [...command.options, ...globalOptions]) {
          expect(help.stdout, `${name} ${flag} lists --${option}`).toMatch(listed(option));
        }
        expect(help.stderr).toBe('');
      }
    },
  );

  it.each(groups)(
    'the group %s --help (and -h) prints each of its commands with their options, exit 0',
    async (group) => {
      const directory = emptyDirectory();
      const members = commands.filter((command) => command.name.startsWith(`${group} `));
      expect(members.length).toBeGreaterThan(0);
      for (const flag of ['--help', '-h']) {
        const help = await runCli([group, flag], directory);
        expect(help.code, `${group} ${flag}`).toBe(0);
        for (const member of members) {
          expect(help.stdout).toContain(`usage: mcp-context ${member.name}`);
          for (const option of member.options) expect(help.stdout).toMatch(listed(option));
        }
        for (const option of globalOptions) expect(help.stdout).toMatch(listed(option));
      }
    },
  );

  it('every option a command takes is declared with a description (nothing to list is missing)', () => {
    for (const command of commands) {
      for (const option of command.options) {
        expect(cliOptions[option]?.description, `${command.name} --${option}`).toMatch(/\S/);
      }
    }
  });
});
