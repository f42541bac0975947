// Types come from `ai` (the optional peer hosts install), not from @ai-sdk/provider, which this
// package does not declare: the shipped .d.ts may reference only declared packages.
import type { LanguageModelMiddleware } from 'ai';
import { ContextError } from '../errors.js';
import { mediaPartsOf } from '../render/media-parts-of.js';
import { renderText } from '../render/render-text.js';
import type { ProvideResult, Turn } from '../types.js';

/** Where the context goes in the prompt. */
export type ContextPlacement = 'system' | 'before-last-user' | 'last-user';

export interface ResourceContextMiddlewareOptions {
  /** A `ResourceContextProvider` (anything with its `provide`). */
  readonly provider: { provide(turn: Turn): Promise<ProvideResult> };
  /**
   * The turn for a model call: pipeline, conversation, message attachments, model capabilities,
   * budget. When it has no `message.text`, the last user message's text is used (for `relevant`).
   */
  readonly turn: (params: LanguageModelV3CallOptions) => Turn | Promise<Turn>;
  /**
   * `system` (default): a system message after the leading system messages (media, which system
   * messages cannot carry, go in a user message before the last one); `before-last-user`: a user
   * message right before the last user message; `last-user`: appended to the last user message.
   */
  readonly placement?: ContextPlacement;
  /** Called with every turn's result, e.g. to log the trace. */
  readonly onProvided?: (result: ProvideResult) => void;
}

type LanguageModelV3Middleware = LanguageModelMiddleware;
type LanguageModelV3CallOptions = Parameters<
  NonNullable<LanguageModelMiddleware['transformParams']>
>[0]['params'];
type LanguageModelV3Prompt = LanguageModelV3CallOptions['prompt'];
type LanguageModelV3Message = LanguageModelV3Prompt[number];
type LanguageModelV3TextPart = Extract<
  Extract<LanguageModelV3Message, { role: 'user' }>['content'][number],
  { type: 'text' }
>;
type LanguageModelV3FilePart = Extract<
  Extract<LanguageModelV3Message, { role: 'user' }>['content'][number],
  { type: 'file' }
>;

const placements = new Set<ContextPlacement>(['system', 'before-last-user', 'last-user']);

/**
 * AI SDK (`ai@6`) language model middleware: before each call it asks the provider for the
 * turn's context and injects it into the prompt. `transformParams` returns new params; the
 * caller's prompt and messages are never mutated.
 *
 * ```ts
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: resourceContextMiddleware({ provider, turn }) });
 * ```
 */
export function resourceContextMiddleware(
  options: ResourceContextMiddlewareOptions,
): LanguageModelV3Middleware {
  if (typeof options?.provider?.provide !== 'function') {
    throw new ContextError('INVALID_OPTION', 'provider must be a ResourceContextProvider', {
      field: 'provider',
    });
  }
  if (typeof options.turn !== 'function') {
    throw new ContextError('INVALID_OPTION', 'turn must be a function of the call params', { field: 'turn' });
  }
  const placement = options.placement ?? 'system';
  if (!placements.has(placement)) {
    throw new ContextError('INVALID_OPTION', `placement must be system, before-last-user or last-user`, {
      field: 'placement',
      value: placement,
    });
  }
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params, model }) => {
      const asked = await options.turn(params);
      // The wrapped model's id, unless the turn names one: the turn is budgeted in its tokens.
      const modelId = asked.model?.id ?? (typeof model?.modelId === 'string' ? model.modelId : undefined);
      const turn = modelId === undefined ? asked : { ...asked, model: { ...asked.model, id: modelId } };
      const text = turn.message?.text ?? lastUserText(params.prompt);
      const result = await options.provider.provide(
        text === undefined ? turn : { ...turn, message: { ...turn.message, text } },
      );
      options.onProvided?.(result);
      if (result.blocks.length === 0) return params;
      return { ...params, prompt: inject(params.prompt, result, placement) };
    },
  };
}

// --- Internal helpers ---

function inject(
  prompt: LanguageModelV3Prompt,
  result: ProvideResult,
  placement: ContextPlacement,
): LanguageModelV3Prompt {
  const text: LanguageModelV3TextPart = { type: 'text', text: renderText(result.blocks) };
  const files: LanguageModelV3FilePart[] = mediaPartsOf(result.blocks).map((part) => ({
    type: 'file',
    data: part.data,
    mediaType: part.mimeType,
    filename: part.uri.slice(part.uri.lastIndexOf('/') + 1) || part.kind,
  }));
  const lastUser = prompt.findLastIndex((message) => message.role === 'user');
  const beforeLastUser = lastUser === -1 ? prompt.length : lastUser;
  if (placement === 'system') {
    let leading = 0;
    while (prompt[leading]?.role === 'system') leading++;
    const system: LanguageModelV3Message = { role: 'system', content: text.text };
    const media: LanguageModelV3Message[] = files.length > 0 ? [{ role: 'user', content: files }] : [];
    const withMedia = [...prompt.slice(0, beforeLastUser), ...media, ...prompt.slice(beforeLastUser)];
    return [...withMedia.slice(0, leading), system, ...withMedia.slice(leading)];
  }
  if (placement === 'before-last-user' || lastUser === -1) {
    const message: LanguageModelV3Message = { role: 'user', content: [text, ...files] };
    return [...prompt.slice(0, beforeLastUser), message, ...prompt.slice(beforeLastUser)];
  }
  const target = prompt[lastUser] as LanguageModelV3Message & { role: 'user' };
  const appended: LanguageModelV3Message = { ...target, content: [...target.content, text, ...files] };
  return [...prompt.slice(0, lastUser), appended, ...prompt.slice(lastUser + 1)];
}

function lastUserText(prompt: LanguageModelV3Prompt): string | undefined {
  const message = prompt.findLast((candidate) => candidate.role === 'user');
  if (message?.role !== 'user') return undefined;
  const texts = message.content.filter((part) => part.type === 'text').map((part) => part.text);
  return texts.length > 0 ? texts.join('\n') : undefined;
}
