import type { CliCommandRun } from '../cli-command.js';
import { createProgress } from '../create-progress.js';
import { formatTable } from '../format-table.js';
import { listEveryPage } from '../list-every-page.js';
import { displayName, listedItemColumns, terminalSafe } from '../listed-item-columns.js';
import { requirePositionals, shorten } from '../require-positionals.js';
import { UsageError } from '../usage-error.js';

/** `mcp-context resources` (declared, with its options, in ../cli-commands.ts). */
export const runListResources: CliCommandRun = async (context, positionals, values) => {
  const [server] = requirePositionals(positionals, ['server'] as const);
  if (values.all && values.cursor !== undefined) throw new UsageError('give --all or --cursor, not both');
  const servers = await context.servers();
  let result: Awaited<ReturnType<typeof servers.listResources>>;
  if (values.all) {
    const progress = createProgress();
    const resources = await listEveryPage(
      (cursor) =>
        servers
          .listResources(server, cursor === undefined ? {} : { cursor })
          .then((page) => ({ items: page.resources, nextCursor: page.nextCursor })),
      (items, pages) => progress.update(`${server}: ${items} resources in ${pages} page(s)…`),
    ).finally(() => progress.done());
    result = { resources };
  } else {
    result = await servers.listResources(
      server,
      values.cursor === undefined ? {} : { cursor: values.cursor },
    );
  }
  if (context.json) {
    context.writeJson(result);
    return 0;
  }
  const extra = listedItemColumns(result.resources);
  const rows = result.resources.map((resource) => [
    terminalSafe(resource.uri),
    terminalSafe(resource.mimeType ?? '-'),
    displayName(resource),
    ...extra.cells(resource),
    terminalSafe(shorten(resource.description)),
  ]);
  const style = context.style;
  const header = ['uri', 'mime', 'name', ...extra.header, 'description'];
  context.write(`${formatTable(header, rows, (text, row) => (row < 0 ? style.bold(text) : text))}\n`);
  if (result.nextCursor !== undefined) {
    context.write(
      style.dim(
        `more: mcp-context resources ${server} --cursor ${result.nextCursor}   (or --all for every page)\n`,
      ),
    );
  }
  return 0;
};
