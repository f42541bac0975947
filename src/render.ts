// The `mcp-resource-context/render` entry: the pieces of rendering a host may reuse: the context preamble, the neutralization rule for server text, and the message formats' option and part types.
// Any new export added here becomes public API. Use named exports, not wildcards.

export { contextPreamble } from './render/frame-resource.js';
export { neutralizeText, restoreText } from './render/neutralize-text.js';
export type {
  AnthropicContentBlock,
  AnthropicImageMediaType,
  ToAnthropicContentOptions,
} from './render/to-anthropic-content.js';
export type {
  OpenAIContentPart,
  OpenAIMessage,
  ToOpenAIMessagesOptions,
} from './render/to-openai-messages.js';
