import type { GetPromptResult } from '@modelcontextprotocol/client';
import type { ResourceLink } from '../links/resource-link.js';
import type { CallOptions } from '../mcp/operation-schemas.js';
import { type PromptCommand, parsePromptCommand } from './parse-prompt-command.js';
import {
  type RenderedPromptMessage,
  type RenderPromptOptions,
  renderPromptMessages,
} from './render-prompt-messages.js';

/** The registry (operator view) or a pipeline's `PolicyBoundServers`: anything that gets prompts. */
export interface PromptSource {
  getPrompt(
    server: string,
    name: string,
    args?: Record<string, string>,
    options?: CallOptions,
  ): Promise<GetPromptResult>;
}

export interface PromptCommandOptions extends RenderPromptOptions {
  readonly signal?: AbortSignal;
  /** The host's user the command is run for (per-user servers need it). */
  readonly principal?: string;
  readonly timeoutMs?: number;
}

export interface PromptCommandResult {
  readonly server: string;
  readonly prompt: string;
  /** The arguments as parsed; they stay with the caller and never reach the audit log. */
  readonly arguments: Readonly<Record<string, string>>;
  readonly description?: string;
  readonly messages: readonly RenderedPromptMessage[];
  /** Every message's resource links, in order: pass the result to `attachmentsFromLinks`. */
  readonly links: readonly ResourceLink[];
}

/**
 * Runs `/mcp__<server>__<prompt> key=value …` (or `… {"key": "value"}`, or a command already
 * parsed, e.g. by the CLI from its words with `parsePromptArguments`): parse, check the
 * prompt's required arguments (PROMPT_ARGUMENT_MISSING before anything is sent), `prompts/get`,
 * then render the messages with their roles. Through a `PolicyBoundServers` the pipeline's
 * binding is checked first (POLICY_DENIED) and the call is audited as that pipeline.
 */
export async function runPromptCommand(
  servers: PromptSource,
  commandText: string | PromptCommand,
  options: PromptCommandOptions = {},
): Promise<PromptCommandResult> {
  const command = typeof commandText === 'string' ? parsePromptCommand(commandText) : commandText;
  const result = await servers.getPrompt(command.server, command.prompt, command.arguments, {
    ...(options.signal !== undefined && { signal: options.signal }),
    ...(options.principal !== undefined && { principal: options.principal }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  const messages = await renderPromptMessages(command.server, result.messages, options);
  return {
    server: command.server,
    prompt: command.prompt,
    arguments: command.arguments,
    ...(result.description !== undefined && { description: result.description }),
    messages,
    links: messages.flatMap((message) => message.links),
  };
}
