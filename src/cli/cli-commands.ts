import type { CliCommand } from './cli-command.js';

/**
 * Every command of `mcp-context`, in the order the usage text lists them: what `--help` prints
 * and what the parser checks, declared here without the code that runs them. A command's module
 * (and the part of the library it uses) is imported only when that command runs, so `--help`,
 * `--version` and usage errors load none of the library.
 */
export const commands: readonly CliCommand[] = [
  {
    name: 'servers',
    arguments: '',
    summary: 'each configured server: state, transport, capabilities, counts, last error',
    options: [],
    load: async () => (await import('./commands/list-servers.js')).runListServers,
  },
  {
    name: 'resources',
    arguments: '<server> [--all | --cursor C]',
    summary: "a server's resources: the first page, the page at a cursor, or every page",
    options: ['all', 'cursor'],
    load: async () => (await import('./commands/list-resources.js')).runListResources,
  },
  {
    name: 'templates',
    arguments: '<server>',
    summary: "a server's resource templates (RFC 6570), every page",
    options: [],
    load: async () => (await import('./commands/list-templates.js')).runListTemplates,
  },
  {
    name: 'read',
    arguments: '<server> <uri> [--max-tokens N]',
    summary:
      'read a resource and print it converted and framed as a model would get it; --max-tokens fits it like a one-attachment turn',
    options: ['max-tokens'],
    load: async () => (await import('./commands/read-resource.js')).runReadResource,
  },
  {
    name: 'prompts',
    arguments: '<server>',
    summary: "a server's prompts and their arguments (? marks an optional one), every page",
    options: [],
    load: async () => (await import('./commands/list-prompts.js')).runListPrompts,
  },
  {
    name: 'prompt',
    arguments: '<server> <name> [key=value … | JSON]   (or /mcp__<server>__<name> [key=value … | JSON])',
    summary:
      "get a prompt with arguments and print its messages as a model gets them (the library's runPromptCommand)",
    options: [],
    load: async () => (await import('./commands/get-prompt.js')).runGetPrompt,
  },
  {
    name: 'complete',
    arguments:
      '<server> <template-or-prompt> <argument> [prefix] [key=value …]\n' +
      '      candidates for one argument; key=value gives arguments already chosen (context)',
    summary: "a server's completion candidates for an argument of a resource template or a prompt",
    options: [],
    load: async () => (await import('./commands/complete-argument.js')).runComplete,
  },
  {
    name: 'skills',
    arguments: '<server>',
    summary:
      "a server's skills (skills extension): name, files, total size, description; pin one with pin add --skill",
    options: [],
    load: async () => (await import('./commands/list-skills.js')).runListSkills,
  },
  {
    name: 'pin add',
    arguments:
      '(--pipeline P | --conversation C) <server> <uri> [--max-tokens N] [--priority N] [--ignore-audience] [--skill]\n' +
      '      a <uri> with {braces} is a template: add its arguments as key=value …',
    summary: 'pin a resource (or template) to a pipeline or a conversation, in the pin store',
    options: ['pipeline', 'conversation', 'max-tokens', 'priority', 'ignore-audience', 'skill'],
    load: async () => (await import('./commands/pin-add.js')).runPinAdd,
  },
  {
    name: 'pin rm',
    arguments: '<id>',
    summary: 'remove a pin by id (exit code 1 when there is no such pin)',
    options: [],
    load: async () => (await import('./commands/pin-remove.js')).runPinRemove,
  },
  {
    name: 'pin ls',
    arguments: '[--pipeline P] [--conversation C]',
    summary: "the pins of a pipeline and/or a conversation, oldest first (a turn's order within a scope)",
    options: ['pipeline', 'conversation'],
    load: async () => (await import('./commands/pin-list.js')).runPinList,
  },
  {
    name: 'provide',
    arguments:
      '--pipeline P [--conversation C] [--attach server:uri]… [--budget N] [--format text|openai|anthropic]',
    summary:
      "what the next model call would receive: the pipeline's and conversation's pins plus --attach, within the budget",
    options: ['pipeline', 'conversation', 'attach', 'budget', 'format'],
    load: async () => (await import('./commands/provide-context.js')).runProvideContext,
  },
  {
    name: 'login',
    arguments: '<server> [--principal P] [--credentials FILE]',
    summary:
      'authorize at an OAuth server: prints the URL to open, waits for the redirect to 127.0.0.1, stores the tokens encrypted',
    options: ['principal', 'credentials'],
    load: async () => (await import('./commands/login.js')).runLogin,
  },
  {
    name: 'logout',
    arguments: '<server> [--principal P] [--credentials FILE]',
    summary: "forget the server's OAuth tokens and client registration (for one principal)",
    options: ['principal', 'credentials'],
    load: async () => (await import('./commands/login.js')).runLogout,
  },
  {
    name: 'inspect',
    arguments: '[--port N] [--content] [--pinning]',
    summary:
      'a live page on 127.0.0.1: servers, pins by pipeline and conversation, turns (--content shows context, --pinning allows changes)',
    options: ['port', 'content', 'pinning'],
    load: async () => (await import('./commands/inspect.js')).runInspect,
  },
  {
    name: 'serve',
    arguments: '[--host ADDRESS] [--port N]',
    summary:
      'the library over HTTP/JSON for hosts in any language (docs/service.md); SIGTERM drains in-flight turns and exits 0',
    options: ['host', 'port'],
    load: async () => (await import('./commands/serve.js')).runServe,
  },
  {
    name: 'fixture serve',
    arguments: '[--port N]',
    summary: 'serve the GitNexus fixture over Streamable HTTP on 127.0.0.1 until interrupted',
    options: ['port'],
    load: async () => (await import('./commands/serve-fixture.js')).runFixtureServe,
  },
  {
    name: 'demo',
    arguments: '',
    summary: 'the main job on the bundled GitNexus fixture (what npm start runs)',
    options: [],
    load: async () => (await import('./commands/run-demo.js')).runDemoCommand,
  },
];
