import type { CliCommandRun } from '../cli-command.js';
import { storeLocation } from '../cli-context.js';
import { requirePositionals } from '../require-positionals.js';

/** `mcp-context pin rm` (declared, with its options, in ../cli-commands.ts). */
export const runPinRemove: CliCommandRun = async (context, positionals) => {
  const [id] = requirePositionals(positionals, ['id'] as const);
  const store = await context.store();
  const removed = await store.unpin(id);
  if (context.json) context.writeJson({ id, removed });
  else if (removed) context.write(`removed ${id}\n`);
  else context.writeError(`mcp-context: no pin with id ${id} in ${storeLocation(store)}\n`);
  return removed ? 0 : 1;
};
