import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';
import { z } from 'zod';
import { type FixtureSkill, skillEntry } from '../../fixtures/workspace/workspace-skills.js';

// The skills extension's methods (SEP-2640) are not in the SDK: declared by their wire shape.
const getSkillRequestSchema = z.object({
  method: z.literal('skills/get'),
  params: z.looseObject({ uri: z.string() }),
});

/**
 * A real SDK server (in-process) that declares the skills extension and serves the skills a
 * test gives it: `skills/get` answers each skill's entry (its manifest: every file given, with
 * its digest and size, unless `entry` overrides it), and `resources/read` serves every file of
 * every skill. `reads` records what was read, so a test can assert a file was never asked for.
 */
export function startSkillServer(
  skills: readonly (FixtureSkill & { readonly entry?: Record<string, unknown> })[],
) {
  const sessions: Server[] = [];
  const reads: string[] = [];
  const files = new Map(skills.flatMap((skill) => Object.entries(skill.files)));
  onTestFinished(async () => {
    await Promise.allSettled(sessions.map((session) => session.close()));
  });
  const createSession = () => {
    const server = new Server(
      { name: 'skills', version: '1.0.0' },
      { capabilities: { resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } } },
    );
    server.setRequestHandler(getSkillRequestSchema, (request) => {
      const skill = skills.find((candidate) => candidate.uri === request.params.uri);
      if (!skill) throw new McpError(ErrorCode.InvalidParams, `No skill is served at ${request.params.uri}`);
      return { skill: skill.entry ?? skillEntry(skill) };
    });
    server.setRequestHandler(ReadResourceRequestSchema, (request) => {
      const { uri } = request.params;
      reads.push(uri);
      const text = files.get(uri);
      if (text === undefined) throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
      return { contents: [{ uri, mimeType: 'text/markdown', text }] };
    });
    sessions.push(server);
    return server;
  };
  return {
    serverConfig: {
      type: 'transport' as const,
      createTransport: async () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await createSession().connect(serverSide);
        return clientSide;
      },
    },
    /** Every resources/read so far, in order. */
    reads: () => [...reads],
  };
}
