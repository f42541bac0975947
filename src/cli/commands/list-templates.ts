import type { CliCommandRun } from '../cli-command.js';
import { createProgress } from '../create-progress.js';
import { formatTable } from '../format-table.js';
import { listEveryPage } from '../list-every-page.js';
import { displayName, listedItemColumns, terminalSafe } from '../listed-item-columns.js';
import { requirePositionals, shorten } from '../require-positionals.js';

/** `mcp-context templates` (declared, with its options, in ../cli-commands.ts). */
export const runListTemplates: CliCommandRun = async (context, positionals) => {
  const [server] = requirePositionals(positionals, ['server'] as const);
  const servers = await context.servers();
  const progress = createProgress();
  const resourceTemplates = await listEveryPage(
    (cursor) =>
      servers
        .listResourceTemplates(server, cursor === undefined ? {} : { cursor })
        .then((page) => ({ items: page.resourceTemplates, nextCursor: page.nextCursor })),
    (items, pages) => progress.update(`${server}: ${items} templates in ${pages} page(s)…`),
  ).finally(() => progress.done());
  if (context.json) {
    context.writeJson({ resourceTemplates });
    return 0;
  }
  const extra = listedItemColumns(resourceTemplates);
  const rows = resourceTemplates.map((template) => [
    terminalSafe(template.uriTemplate),
    terminalSafe(template.mimeType ?? '-'),
    displayName(template),
    ...extra.cells(template),
    terminalSafe(shorten(template.description)),
  ]);
  const style = context.style;
  const header = ['uri template', 'mime', 'name', ...extra.header, 'description'];
  context.write(`${formatTable(header, rows, (text, row) => (row < 0 ? style.bold(text) : text))}\n`);
  return 0;
};
