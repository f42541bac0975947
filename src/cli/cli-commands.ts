import type { CliCommand } from './cli-command.js';
import { completeCommand } from './commands/complete-argument.js';
import { getPromptCommand } from './commands/get-prompt.js';
import { inspectCommand } from './commands/inspect.js';
import { listPromptsCommand } from './commands/list-prompts.js';
import { listResourcesCommand } from './commands/list-resources.js';
import { listServersCommand } from './commands/list-servers.js';
import { listSkillsCommand } from './commands/list-skills.js';
import { listTemplatesCommand } from './commands/list-templates.js';
import { loginCommand, logoutCommand } from './commands/login.js';
import { pinAddCommand } from './commands/pin-add.js';
import { pinListCommand } from './commands/pin-list.js';
import { pinRemoveCommand } from './commands/pin-remove.js';
import { provideContextCommand } from './commands/provide-context.js';
import { readResourceCommand } from './commands/read-resource.js';
import { demoCommand } from './commands/run-demo.js';
import { serveCommand } from './commands/serve.js';
import { fixtureServeCommand } from './commands/serve-fixture.js';

/** Every command of `mcp-context`, in the order the usage text lists them. */
export const commands: readonly CliCommand[] = [
  listServersCommand,
  listResourcesCommand,
  listTemplatesCommand,
  readResourceCommand,
  listPromptsCommand,
  getPromptCommand,
  completeCommand,
  listSkillsCommand,
  pinAddCommand,
  pinRemoveCommand,
  pinListCommand,
  provideContextCommand,
  loginCommand,
  logoutCommand,
  inspectCommand,
  serveCommand,
  fixtureServeCommand,
  demoCommand,
];
