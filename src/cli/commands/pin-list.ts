import type { Attachment, Scope } from '../../index.js';
import type { CliCommandRun } from '../cli-command.js';
import { storeLocation } from '../cli-context.js';
import { describeScope, describeTarget } from '../describe-pin.js';
import { formatTable } from '../format-table.js';
import { requirePositionals } from '../require-positionals.js';
import { UsageError } from '../usage-error.js';

/** `mcp-context pin ls` (declared, with its options, in ../cli-commands.ts). */
export const runPinList: CliCommandRun = async (context, positionals, values) => {
  requirePositionals(positionals, [] as const);
  const scopes: Scope[] = [
    ...(values.pipeline !== undefined ? [{ pipelineId: values.pipeline }] : []),
    ...(values.conversation !== undefined ? [{ conversationId: values.conversation }] : []),
  ];
  if (scopes.length === 0) throw new UsageError('give --pipeline P, --conversation C, or both');
  const store = await context.store();
  const pins: Attachment[] = [];
  for (const scope of scopes) pins.push(...(await store.list(scope)));
  if (context.json) {
    context.writeJson(pins);
    return 0;
  }
  if (pins.length === 0) {
    context.write(`no pins for ${scopes.map(describeScope).join(' or ')} in ${storeLocation(store)}\n`);
    return 0;
  }
  const rows = pins.map((pin) => [
    pin.id,
    describeScope(pin.scope),
    pin.server,
    describeTarget(pin),
    pin.priority ?? 0,
    pin.maxTokens ?? '-',
    pin.addedAt,
  ]);
  const style = context.style;
  context.write(
    `${formatTable(
      ['id', 'scope', 'server', 'target', 'priority', 'max tokens', 'added'],
      rows,
      (text, row) => (row < 0 ? style.bold(text) : text),
    )}\n`,
  );
  return 0;
};
