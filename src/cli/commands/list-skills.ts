import type { CliCommandRun } from '../cli-command.js';
import { formatTable } from '../format-table.js';
import { terminalSafe } from '../listed-item-columns.js';
import { requirePositionals, shorten } from '../require-positionals.js';

/** `mcp-context skills` (declared, with its options, in ../cli-commands.ts). */
export const runListSkills: CliCommandRun = async (context, positionals) => {
  const [server] = requirePositionals(positionals, ['server'] as const);
  const servers = await context.servers();
  const result = await servers.listSkills(server, { all: true });
  if (context.json) {
    context.writeJson(result);
    return 0;
  }
  const rows = result.skills.map((skill) => {
    const files = skill.resources === 'dynamic' ? undefined : skill.resources;
    const bytes = files?.reduce((sum, file) => sum + file.size, 0);
    return [
      terminalSafe(skill.uri),
      terminalSafe(skill.frontmatter.name),
      files === undefined ? 'dynamic' : String(files.length),
      bytes === undefined ? '-' : String(bytes),
      terminalSafe(shorten(skill.frontmatter.description)),
    ];
  });
  const style = context.style;
  const header = ['uri', 'name', 'files', 'bytes', 'description'];
  context.write(`${formatTable(header, rows, (text, row) => (row < 0 ? style.bold(text) : text))}\n`);
  context.write(style.dim(`pin one: mcp-context pin add --pipeline P ${server} <uri> --skill\n`));
  return 0;
};
