import type { CliCommandRun } from '../cli-command.js';
import { createProgress } from '../create-progress.js';
import { formatTable } from '../format-table.js';
import { listEveryPage } from '../list-every-page.js';
import { displayName, listedItemColumns, terminalSafe } from '../listed-item-columns.js';
import { requirePositionals, shorten } from '../require-positionals.js';

/** `mcp-context prompts` (declared, with its options, in ../cli-commands.ts). */
export const runListPrompts: CliCommandRun = async (context, positionals) => {
  const [server] = requirePositionals(positionals, ['server'] as const);
  const servers = await context.servers();
  const progress = createProgress();
  const prompts = await listEveryPage(
    (cursor) =>
      servers
        .listPrompts(server, cursor === undefined ? {} : { cursor })
        .then((page) => ({ items: page.prompts, nextCursor: page.nextCursor })),
    (items, pages) => progress.update(`${server}: ${items} prompts in ${pages} page(s)…`),
  ).finally(() => progress.done());
  if (context.json) {
    context.writeJson({ prompts });
    return 0;
  }
  const extra = listedItemColumns(prompts);
  const rows = prompts.map((prompt) => [
    displayName(prompt),
    terminalSafe(
      (prompt.arguments ?? []).map((argument) => `${argument.name}${argument.required ? '' : '?'}`).join(' '),
    ),
    ...extra.cells(prompt),
    terminalSafe(shorten(prompt.description)),
  ]);
  const style = context.style;
  const header = ['prompt', 'arguments', ...extra.header, 'description'];
  context.write(`${formatTable(header, rows, (text, row) => (row < 0 ? style.bold(text) : text))}\n`);
  context.write(style.dim(`run one: mcp-context prompt ${server} <prompt> [key=value …]\n`));
  return 0;
};
