import { AccessPolicy, ContextError, MemoryAttachmentStore, ResourceContextProvider } from '../../index.js';
import type { CliCommandRun } from '../cli-command.js';
import { parseIntegerOption } from '../cli-options.js';
import { requirePositionals } from '../require-positionals.js';

/** A pipeline that exists only for this command, bound to the one server it reads. */
const cliPipelineId = 'mcp-context-cli';
/** Without --max-tokens the whole resource is shown: a budget no resource reaches. */
const unboundedTokens = 100_000_000;

/** `mcp-context read` (declared, with its options, in ../cli-commands.ts). */
export const runReadResource: CliCommandRun = async (context, positionals, values) => {
  const [server, uri] = requirePositionals(positionals, ['server', 'uri'] as const);
  const maxTokens = parseIntegerOption('max-tokens', values['max-tokens'], { min: 1 });
  const servers = await context.servers();
  if (!servers.has(server)) {
    throw new ContextError('UNKNOWN_SERVER', `no MCP server named "${server}" is configured`, {
      field: 'server',
      value: server,
    });
  }
  // The same path as a turn: convert, budget, frame, trace. Pins play no part here.
  const provider = new ResourceContextProvider({
    servers,
    attachments: new MemoryAttachmentStore(),
    policy: new AccessPolicy({ bindings: { [cliPipelineId]: { servers: [server] } } }),
    budget: { maxTokens: maxTokens ?? unboundedTokens },
  });
  try {
    const result = await provider.provide({
      pipelineId: cliPipelineId,
      message: { attachments: [{ server, uri }] },
    });
    const entry = result.trace.entries[0];
    const readable = entry?.status === 'injected' || entry?.status === 'truncated';
    if (context.json) {
      context.writeJson(result);
    } else if (readable) {
      for (const block of result.blocks) if (block.kind === 'resource') context.write(`${block.text}\n`);
      if (entry.status === 'truncated') {
        // The markers' own words, so this line and the text above always agree.
        const text = result.blocks.map((block) => block.text).join('');
        const cuts = [...text.matchAll(/\[truncated: ([^;\]]*)/g)].map((match) => match[1]);
        context.writeError(
          context.errorStyle.yellow(`truncated: ${cuts.join('; ') || `${entry.reason ?? 'cut to fit'}`}\n`),
        );
      }
    }
    if (!readable) {
      const why = entry?.error
        ? `${entry.error.code}: ${entry.error.message}`
        : (entry?.reason ?? `nothing came back for ${uri}`);
      context.writeError(`mcp-context: ${uri}: ${entry?.status ?? 'error'}: ${why}\n`);
      return 1;
    }
    return 0;
  } finally {
    provider.dispose();
  }
};
