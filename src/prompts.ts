// The `mcp-resource-context/prompts` entry: MCP prompts for hosts: argument validation, slash-command parsing, running a command through the policy, and rendering a prompt's messages.
// Any new export added here becomes public API. Use named exports, not wildcards.

export { parsePromptArguments } from './prompts/parse-prompt-arguments.js';
export { type PromptCommand, parsePromptCommand } from './prompts/parse-prompt-command.js';
export {
  type RenderedPromptContent,
  type RenderedPromptMessage,
  type RenderPromptOptions,
  renderPromptMessages,
} from './prompts/render-prompt-messages.js';
export {
  type PromptCommandOptions,
  type PromptCommandResult,
  type PromptSource,
  runPromptCommand,
} from './prompts/run-prompt-command.js';
