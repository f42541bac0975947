import { describe, expect, it } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { resolveTargetUri } from '../../src/attachments/resolve-target-uri.js';
import { ContextError } from '../../src/errors.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { resolveUriForGrant } from '../../src/policy/resolve-uri-for-grant.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { scriptedMemoryConfig } from '../mcp/support/scripted-server.js';
import { sharedTokenizer } from '../support/provider-harness.js';

const policy = new AccessPolicy({
  bindings: {
    support: {
      servers: [
        { name: 'files', resources: ['file:///srv/public/**'] },
        { name: 'repos', resources: ['gitnexus://repo/{name}/context'] },
      ],
    },
  },
});
const reads = (server: string, uri: string) =>
  policy.authorize({ pipelineId: 'support', server, operation: 'read', uri }).allowed;

describe('URI grants are compared on a normalized form', () => {
  it.each([
    'file:///srv/public/../secret/keys.txt',
    'file:///srv/public/%2e%2e/secret/keys.txt',
    'file:///srv/public/%2E%2E/secret/keys.txt',
    'file:///srv/public/..%2Fsecret%2Fkeys.txt',
    'file:///srv/public/..%5Csecret%5Ckeys.txt',
    'file:///srv/public/..\\secret\\keys.txt',
    'file:///srv/public/./../secret/keys.txt',
    'file:///srv/public/a/../../secret/keys.txt',
    'file:///srv/public/%252e%252e/secret/keys.txt',
    'file:///srv/public/../../../../etc/passwd',
    // Found by fuzzing: to a POSIX path `//..` climbs out (RFC 3986 alone keeps it inside).
    'file:///srv/public//../secret/keys.txt',
    'file:///srv/public/docs//../../secret/keys.txt',
    // However deep the encoding: a server may decode again at every layer.
    'file:///srv/public/%25252525252e%25252525252e/secret/keys.txt',
  ])('a grant on file:///srv/public/** does not admit %s', (uri) => {
    expect(reads('files', uri)).toBe(false);
  });

  it.each([
    'file:///srv/public/docs/a.txt',
    'file:///srv/public/docs/../b.txt',
    'file:///srv/public/./c.txt',
    'file:///srv/public/name%2Fwith%2Fslashes.txt',
    'file:///srv/public/docs//a.txt',
    'file:///srv/public/docs/a//../b.txt',
  ])('it still admits %s, which stays inside', (uri) => {
    expect(reads('files', uri)).toBe(true);
  });

  it('a template grant does not admit a {name} that walks out', () => {
    expect(reads('repos', 'gitnexus://repo/acme/context')).toBe(true);
    expect(reads('repos', 'gitnexus://repo/..%2F..%2Fsecret/context')).toBe(false);
    expect(reads('repos', 'gitnexus://repo/../context')).toBe(false);
  });

  it('resolves per RFC 3986 §5.2.4, keeps query and fragment, and refuses climbing above the root', () => {
    expect(resolveUriForGrant('file:///a/b/../c?x=../y#..')).toEqual({
      kind: 'resolved',
      uri: 'file:///a/c?x=../y#..',
    });
    expect(resolveUriForGrant('docs://host/a/./b/..')).toEqual({ kind: 'resolved', uri: 'docs://host/a/' });
    expect(resolveUriForGrant('docs://host/a/b')).toEqual({ kind: 'plain' });
    expect(resolveUriForGrant('docs://host/../a').kind).toBe('refused');
  });
});

describe('resolveUriForGrant, case by case', () => {
  it.each([
    // A `.` segment alone is a dot-segment too: the URI must match resolved as well.
    ['docs://host/a/./b', 'docs://host/a/b'],
    // A trailing `.`, `..` or slash names a directory: the slash stays.
    ['docs://host/a/.', 'docs://host/a/'],
    ['docs://host/a/b/..', 'docs://host/a/'],
    ['docs://host/a/../b/', 'docs://host/b/'],
    ['docs://host/a/../b', 'docs://host/b'],
    // Climbing back to the root leaves the root: one slash, not two.
    ['docs://host/a/..', 'docs://host/'],
    ['docs://host/a/../', 'docs://host/'],
    // A relative path (no slash after the scheme) stays relative.
    ['urn:a/../b', 'urn:b'],
    ['urn:a/./b/.', 'urn:a/b/'],
    // No scheme at all: the whole text is a path (a colon later on is part of it).
    ['/a/../b', '/b'],
    ['/p/q:r/../s', '/p/s'],
    // The authority ends at the first separator, a backslash included.
    ['docs://host\\a\\..\\b', 'docs://host/b'],
  ])('%s resolves to %s', (uri, resolved) => {
    expect(resolveUriForGrant(uri)).toEqual({ kind: 'resolved', uri: resolved });
  });

  it.each(['docs://..', 'docs://host', 'docs://host/a/b', 'urn:isbn:0451450523', 'docs://host?x=/../..'])(
    '%s has no dot-segment in its path: plain',
    (uri) => {
      expect(resolveUriForGrant(uri)).toEqual({ kind: 'plain' });
    },
  );

  it('a URI that climbs above its root is refused, saying so', () => {
    expect(resolveUriForGrant('docs://host/a/../../b')).toEqual({
      kind: 'refused',
      reason: 'docs://host/a/../../b climbs above the root of its path',
    });
    expect(resolveUriForGrant('urn:../b')).toEqual({
      kind: 'refused',
      reason: 'urn:../b climbs above the root of its path',
    });
  });
});

describe('template arguments cannot climb out', () => {
  it.each(['../secret/keys.txt', '..', '.', '..%2Fsecret', '..\\secret', 'a/../../b', '%2e%2e'])(
    'argument %j is refused as INVALID_URI naming the argument',
    (value) => {
      let caught: unknown;
      try {
        resolveTargetUri({
          server: 'files',
          template: 'file:///srv/public/{name}',
          arguments: { name: value },
        });
      } catch (error) {
        caught = error;
      }
      expect(ContextError.isInstance(caught)).toBe(true);
      expect(caught).toMatchObject({ code: 'INVALID_URI', field: 'arguments.name' });
    },
  );

  it.each(['..?x=1', '..#top', '.?'])(
    'a reserved expansion {+path} = %j, whose ? or # ends a `..` segment, is refused (found by fuzzing)',
    (value) => {
      expect(() =>
        resolveTargetUri({
          server: 'files',
          template: 'file:///srv/public/{+path}',
          arguments: { path: value },
        }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_URI', field: 'arguments.path' }));
    },
  );

  it('ordinary values, dots inside names included, expand as before', () => {
    expect(
      resolveTargetUri({
        server: 'files',
        template: 'file:///srv/public/{name}',
        arguments: { name: 'v1.2..3.txt' },
      }),
    ).toBe('file:///srv/public/v1.2..3.txt');
  });
});

describe('a turn with a walking URI', () => {
  it('is denied in the trace and never reaches the server that would resolve it', async () => {
    const asked: string[] = [];
    const file = (uri: string, text: string) => [{ uri, mimeType: 'text/plain', text }];
    const servers = new McpServerRegistry({
      mcpServers: {
        files: scriptedMemoryConfig({
          onRead: (uri) => asked.push(uri),
          contents: {
            'file:///srv/public/readme.txt': file('file:///srv/public/readme.txt', 'public'),
            'file:///srv/public/..%2Fsecret%2Fkeys.txt': file('file:///srv/secret/keys.txt', 'SECRET'),
          },
        }),
        // The policy binds both servers; the registry must know each (unknown ones are typed errors).
        repos: scriptedMemoryConfig(),
      },
    });
    const provider = new ResourceContextProvider({
      servers,
      attachments: new MemoryAttachmentStore(),
      policy,
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 2000 },
    });
    try {
      const { trace } = await provider.provide({
        pipelineId: 'support',
        message: {
          attachments: [
            { server: 'files', uri: 'file:///srv/public/readme.txt' },
            { server: 'files', uri: 'file:///srv/public/..%2Fsecret%2Fkeys.txt' },
          ],
        },
      });
      expect(trace.entries.map((entry) => entry.status)).toEqual(['injected', 'denied']);
      expect(asked).toEqual(['file:///srv/public/readme.txt']);
    } finally {
      provider.dispose();
      await servers.close();
    }
  });
});
