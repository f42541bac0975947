import {
  AccessPolicy,
  ContextError,
  type MessageAttachment,
  ResourceContextProvider,
  renderText,
  toAnthropicContent,
  toOpenAIMessages,
} from '../../index.js';
import type { CliCommandRun } from '../cli-command.js';
import { parseIntegerOption } from '../cli-options.js';
import { formatTrace } from '../format-trace.js';
import { requirePositionals } from '../require-positionals.js';
import { UsageError } from '../usage-error.js';

/** The budget when neither the config nor --budget gives one. */
const defaultMaxTokens = 8000;
const formats = ['text', 'openai', 'anthropic'] as const;

/** `mcp-context provide` (declared, with its options, in ../cli-commands.ts). */
export const runProvideContext: CliCommandRun = async (context, positionals, values) => {
  requirePositionals(positionals, [] as const);
  const pipelineId = values.pipeline;
  if (pipelineId === undefined) throw new UsageError('missing --pipeline P');
  const format = values.format ?? 'text';
  if (!(formats as readonly string[]).includes(format)) {
    throw new UsageError(`--format: expected one of ${formats.join(', ')} (got ${JSON.stringify(format)})`);
  }
  const attachments = (values.attach ?? []).map(parseAttach);
  const maxTokens = parseIntegerOption('budget', values.budget, { min: 1 });

  const config = await context.config();
  // The policy would say "not bound" of a server nobody configured: say what is wrong.
  const configured = Object.keys(config.mcpServers);
  const unknown = attachments.find((attachment) => !configured.includes(attachment.server));
  if (unknown) {
    throw new ContextError(
      'UNKNOWN_SERVER',
      `--attach: no MCP server named "${unknown.server}" is configured (configured: ${configured.join(', ') || 'none'})`,
      { field: 'attach', value: unknown.server, server: unknown.server },
    );
  }
  // Loaded only when the config names Redis (`ioredis` is an optional peer): this turn reads
  // and fills the fleet's shared cache, as a replica would.
  const shared = config.redis && new (await import('../../redis.js')).RedisSharedTier(config.redis);
  await shared?.ready(1_000).catch(() => undefined); // unreachable: the turn goes on alone, traced
  const provider = new ResourceContextProvider({
    servers: await context.servers(),
    attachments: await context.pinsForTurn(),
    policy: new AccessPolicy({
      bindings: config.bindings,
      ...(config.agents && { agents: config.agents }),
    }),
    budget: config.budget ?? { maxTokens: defaultMaxTokens },
    ...((config.cache || shared) && { cache: { ...config.cache, ...(shared && { shared }) } }),
    ...(config.serverInstructions !== undefined && { serverInstructions: config.serverInstructions }),
    ...(config.readTimeoutMs !== undefined && { readTimeoutMs: config.readTimeoutMs }),
    ...(config.turnDeadlineMs !== undefined && { turnDeadlineMs: config.turnDeadlineMs }),
    ...(config.tokenizers && { tokenizers: config.tokenizers }),
    ...(config.skills !== undefined && { skills: config.skills }),
  });
  try {
    const result = await provider.provide({
      pipelineId,
      ...(values.conversation !== undefined && { conversationId: values.conversation }),
      ...(attachments.length > 0 && { message: { attachments } }),
      ...(maxTokens !== undefined && { budget: { maxTokens } }),
    });
    if (context.json) {
      context.writeJson({ blocks: result.blocks, trace: result.trace });
    } else {
      // The context on stdout, in the shape the model API takes (pipe it on); what happened to each URI on stderr.
      if (format === 'openai') context.writeJson(toOpenAIMessages(result.blocks));
      else if (format === 'anthropic')
        context.writeJson(toAnthropicContent(result.blocks, { cacheControl: true }));
      else context.write(renderText(result.blocks));
      context.writeError(`${formatTrace(result.trace, context.errorStyle)}\n`);
    }
    return 0;
  } finally {
    provider.dispose();
    await shared?.close();
  }
};

// --- Internal helpers ---

/** `server:uri`; server names cannot contain ":", so the first one separates them. */
function parseAttach(value: string): MessageAttachment {
  const separator = value.indexOf(':');
  if (separator <= 0 || separator === value.length - 1) {
    throw new UsageError(`--attach: expected server:uri (got ${JSON.stringify(value)})`);
  }
  return { server: value.slice(0, separator), uri: value.slice(separator + 1) };
}
