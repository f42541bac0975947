import { startGitNexusFixture } from '../../../fixtures/index.js';
import {
  AccessPolicy,
  McpServerRegistry,
  MemoryAttachmentStore,
  type ProvideResult,
  ResourceContextProvider,
  type Turn,
} from '../../index.js';
import type { CliCommandRun } from '../cli-command.js';
import { formatTrace } from '../format-trace.js';
import { requirePositionals } from '../require-positionals.js';

/** `mcp-context demo` (declared, with its options, in ../cli-commands.ts). */
export const runDemoCommand: CliCommandRun = async (context, positionals) => {
  requirePositionals(positionals, [] as const);
  const turns: unknown[] = [];
  await runDemo(
    (text) => {
      if (!context.json) context.write(text);
    },
    (title, result) => turns.push({ title, ...result }),
  );
  if (context.json) context.writeJson(turns);
  return 0;
};

/**
 * The main job on the bundled fixture: pins at pipeline and conversation scope, a message
 * attachment per turn, a budget small enough that truncation shows, and what was injected.
 */
export async function runDemo(
  write: (text: string) => void,
  onTurn: (title: string, result: ProvideResult) => void = () => {},
): Promise<void> {
  const gitnexus = await startGitNexusFixture({ transport: 'http' });
  const servers = new McpServerRegistry({
    mcpServers: { gitnexus: gitnexus.serverConfig, intranet: gitnexus.serverConfig },
  });
  const policy = new AccessPolicy({ bindings: { support: { servers: ['gitnexus'] } } });
  const attachments = new MemoryAttachmentStore();
  const provider = new ResourceContextProvider({ servers, attachments, policy, budget: { maxTokens: 1500 } });
  try {
    write(`GitNexus fixture serving Streamable HTTP at ${gitnexus.url}\n`);
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://setup',
      maxTokens: 300,
    });
    await attachments.pin({
      scope: { conversationId: 'c-42' },
      server: 'gitnexus',
      template: 'gitnexus://repo/{name}/context',
      arguments: { name: 'acme-shop' },
    });

    const turns: { title: string; turn: Turn }[] = [
      {
        title: 'why does checkout fail?  (+ the checkout process attached to the message)',
        turn: {
          pipelineId: 'support',
          conversationId: 'c-42',
          message: {
            text: 'why does checkout fail?',
            attachments: [{ server: 'gitnexus', uri: 'gitnexus://repo/acme-shop/process/checkout' }],
          },
        },
      },
      {
        title: 'which modules are involved?  (a tighter budget of 900 tokens for a smaller model)',
        turn: {
          pipelineId: 'support',
          conversationId: 'c-42',
          message: {
            text: 'which modules are involved?',
            attachments: [
              {
                server: 'gitnexus',
                template: 'gitnexus://repo/{name}/clusters',
                arguments: { name: 'acme-shop' },
              },
            ],
          },
          budget: { maxTokens: 900 },
        },
      },
      {
        title: 'failures stay visible: an unknown repository and a server this pipeline is not bound to',
        turn: {
          pipelineId: 'support',
          conversationId: 'c-42',
          message: {
            attachments: [
              { server: 'gitnexus', uri: 'gitnexus://repo/nonexistent/context' },
              { server: 'intranet', uri: 'gitnexus://repos' },
            ],
          },
        },
      },
    ];
    for (const [index, { title, turn }] of turns.entries()) {
      const { blocks, trace } = await provider.provide(turn);
      onTurn(title, { blocks, trace });
      write(`\nturn ${index + 1}: ${title}\n`);
      write(`${formatTrace(trace)}\n`);
      write(`${blocks.length} blocks for the model; the first frame header: ${firstFrameHeader(blocks)}\n`);
    }
  } finally {
    provider.dispose();
    await servers.close();
    await gitnexus.close();
  }
}

// --- Internal helpers ---

function firstFrameHeader(blocks: readonly { kind: string; text: string }[]): string {
  const frame = blocks.find((block) => block.kind === 'resource');
  return frame ? (frame.text.split('\n')[0] ?? '') : '(none)';
}
