import { parsePromptArguments } from '../../prompts.js';
import type { CliCommandRun } from '../cli-command.js';
import { requirePositionals } from '../require-positionals.js';

/** `mcp-context complete` (declared, with its options, in ../cli-commands.ts). */
export const runComplete: CliCommandRun = async (context, positionals) => {
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
  if (more) context.writeError(`(${completion.total ?? 'more'} in all; type more of the value to narrow)\n`);
  return 0;
};

/** A URI template names a scheme; a prompt's name does not. */
export function isTemplate(target: string): boolean {
  return target.includes('://') || target.includes('{');
}
