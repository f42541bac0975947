import type { CliCommand } from '../cli-command.js';
import { storeLocation } from '../cli-context.js';
import { requirePositionals } from '../require-positionals.js';

export const pinRemoveCommand: CliCommand = {
  name: 'pin rm',
  arguments: '<id>',
  summary: 'remove a pin by id (exit code 1 when there is no such pin)',
  options: [],
  async run(context, positionals) {
    const [id] = requirePositionals(positionals, ['id'] as const);
    const store = await context.store();
    const removed = await store.unpin(id);
    if (context.json) context.writeJson({ id, removed });
    else if (removed) context.write(`removed ${id}\n`);
    else context.writeError(`mcp-context: no pin with id ${id} in ${storeLocation(store)}\n`);
    return removed ? 0 : 1;
  },
};
