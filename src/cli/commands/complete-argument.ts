import { parsePromptArguments } from '../../prompts.js';
import type { CliCommand } from '../cli-command.js';
import { requirePositionals } from '../require-positionals.js';

export const completeCommand: CliCommand = {
  name: 'complete',
  arguments:
    '<server> <template-or-prompt> <argument> [prefix] [key=value …]\n' +
    '      candidates for one argument; key=value gives arguments already chosen (context)',
  summary: "a server's completion candidates for an argument of a resource template or a prompt",
  options: [],
  async run(context, positionals) {
    const [server, target, argument] = requirePositionals(
      positionals,
      ['server', 'template-or-prompt', 'argument'] as const,
      { rest: true },
    );
    const [prefix = '', ...rest] = positionals.slice(3);
    const chosen = parsePromptArguments(rest);
    const servers = await context.servers();
    const completion = await servers.complete(server, {
      ...(isTemplate(target) ? { template: target } : { prompt: target }),
      argument,
      value: prefix,
      ...(rest.length > 0 && { context: chosen }),
    });
    if (context.json) {
      context.writeJson(completion);
      return 0;
    }
    for (const value of completion.values) context.write(`${value}\n`);
    const more = completion.hasMore || (completion.total ?? 0) > completion.values.length;
    if (more)
      context.writeError(`(${completion.total ?? 'more'} in all; type more of the value to narrow)\n`);
    return 0;
  },
};

/** A URI template names a scheme; a prompt's name does not. */
export function isTemplate(target: string): boolean {
  return target.includes('://') || target.includes('{');
}
