import { describe, expect, it } from 'vitest';
import { mimeTypeAllowed } from '../../src/convert/mime-type-pattern.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { compileUriPattern } from '../../src/policy/uri-pattern.js';

describe('URI patterns', () => {
  it.each([
    ['gitnexus://repo/*/context', 'gitnexus://repo/acme/context', true],
    ['gitnexus://repo/*/context', 'gitnexus://repo/acme/x/context', false],
    ['gitnexus://repo/acme/**', 'gitnexus://repo/acme/process/checkout', true],
    ['gitnexus://repo/acme/**', 'gitnexus://repo/acmeX/context', false],
    ['gitnexus://repo/{name}/context', 'gitnexus://repo/acme/context', true],
    ['gitnexus://repo/{name}/context', 'gitnexus://repo/a/b/context', false],
    ['file:///srv/{+path}', 'file:///srv/a/b/c.txt', true],
    ['search://q{?term,page}', 'search://q?term=x&page=2', true],
    ['docs://a?b', 'docs://a?b', true],
    ['docs://a?b', 'docs://axb', false],
  ])('%s matches %s: %s', (pattern, uri, expected) => {
    expect(compileUriPattern(pattern).test(uri)).toBe(expected);
  });

  it('a glob admits a template string it covers (listing templates)', () => {
    expect(compileUriPattern('gitnexus://repo/*/context').test('gitnexus://repo/{name}/context')).toBe(true);
  });
});

describe('mimeTypeAllowed', () => {
  it('compares parsed essences, whole types and suffixes, never substrings', () => {
    expect(mimeTypeAllowed('text/markdown; charset=utf-8', ['text/markdown'])).toBe(true);
    expect(mimeTypeAllowed('text/yaml', ['text/*'])).toBe(true);
    expect(mimeTypeAllowed('application/ld+json', ['+json'])).toBe(true);
    expect(mimeTypeAllowed('application/jsonx', ['application/json'])).toBe(false);
    expect(mimeTypeAllowed('image/png', ['text/*', '+json'])).toBe(false);
    expect(mimeTypeAllowed(undefined, ['text/*'])).toBe(false);
    expect(mimeTypeAllowed(undefined, ['*'])).toBe(true);
  });
});

describe('AccessPolicy', () => {
  const policy = new AccessPolicy({
    bindings: {
      support: { servers: ['gitnexus'] },
      narrow: {
        servers: [
          { name: 'gitnexus', resources: ['gitnexus://repo/acme/**'], prompts: ['detect_*'], maxBytes: 1000 },
        ],
        mimeTypes: ['text/*'],
      },
      agentic: { servers: ['*'], operations: ['list', 'read', 'tool'], tools: ['echo'] },
    },
    agents: { reviewer: { servers: ['gitnexus'], resources: ['gitnexus://repo/*/context'] } },
  });

  it('denies by default: an unbound pipeline, and a server outside the binding', () => {
    expect(policy.authorize({ pipelineId: 'ghost', server: 'gitnexus', operation: 'list' })).toEqual({
      allowed: false,
      reason: 'pipeline "ghost" has no binding',
    });
    expect(
      policy.authorize({ pipelineId: 'support', server: 'docs', operation: 'read', uri: 'x://y' }),
    ).toMatchObject({
      allowed: false,
    });
  });

  it('keeps the original shape working: a bound server allows list, read and prompt but not tools', () => {
    for (const operation of ['list', 'read', 'prompt'] as const) {
      expect(policy.authorize({ pipelineId: 'support', server: 'gitnexus', operation }).allowed).toBe(true);
    }
    expect(policy.authorize({ pipelineId: 'support', server: 'gitnexus', operation: 'tool' }).allowed).toBe(
      false,
    );
  });

  it('applies per-server URI patterns, prompt globs and limits', () => {
    const read = (uri: string) =>
      policy.authorize({ pipelineId: 'narrow', server: 'gitnexus', operation: 'read', uri });
    expect(read('gitnexus://repo/acme/context')).toEqual({
      allowed: true,
      limits: { maxBytes: 1000, mimeTypes: [['text/*']] },
    });
    expect(read('gitnexus://repos').allowed).toBe(false);
    const prompt = (name: string) =>
      policy.authorize({ pipelineId: 'narrow', server: 'gitnexus', operation: 'prompt', prompt: name })
        .allowed;
    expect([prompt('detect_impact'), prompt('generate_map')]).toEqual([true, false]);
  });

  it('a request naming an agent needs both bindings', () => {
    const request = { pipelineId: 'support', server: 'gitnexus', operation: 'read' as const };
    expect(
      policy.authorize({ ...request, agentId: 'reviewer', uri: 'gitnexus://repo/acme/context' }).allowed,
    ).toBe(true);
    expect(policy.authorize({ ...request, agentId: 'reviewer', uri: 'gitnexus://repos' })).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('agent "reviewer"'),
    });
    expect(policy.authorize({ ...request, agentId: 'stranger', uri: 'gitnexus://repos' }).allowed).toBe(
      false,
    );
  });

  it('tools need the tool operation and a matching name', () => {
    const call = (tool: string) =>
      policy.authorize({ pipelineId: 'agentic', server: 'any', operation: 'tool', tool });
    expect([call('echo').allowed, call('delete_everything').allowed]).toEqual([true, false]);
  });

  it('every denial names who, what and where', () => {
    const deny = (request: Parameters<AccessPolicy['authorize']>[0]) => policy.authorize(request);
    expect(deny({ pipelineId: 'support', server: 'docs', operation: 'read', uri: 'x://y' })).toEqual({
      allowed: false,
      reason: 'pipeline "support" is not bound to server "docs"',
    });
    expect(deny({ pipelineId: 'support', server: 'gitnexus', operation: 'tool', tool: 'echo' })).toEqual({
      allowed: false,
      reason: 'pipeline "support" may not tool on server "gitnexus"',
    });
    expect(
      deny({ pipelineId: 'narrow', server: 'gitnexus', operation: 'read', uri: 'gitnexus://repos' }),
    ).toEqual({
      allowed: false,
      reason: 'pipeline "narrow" may not access gitnexus://repos on server "gitnexus"',
    });
    expect(
      deny({ pipelineId: 'narrow', server: 'gitnexus', operation: 'prompt', prompt: 'generate_map' }),
    ).toEqual({
      allowed: false,
      reason: 'pipeline "narrow" may not use prompt "generate_map" of server "gitnexus"',
    });
    expect(
      deny({ pipelineId: 'agentic', server: 'any', operation: 'tool', tool: 'delete_everything' }),
    ).toEqual({
      allowed: false,
      reason: 'pipeline "agentic" may not call tool "delete_everything" of server "any"',
    });
  });

  it('a pipeline and its agent: the smaller byte cap and both media type lists apply', () => {
    const layered = new AccessPolicy({
      bindings: { p: { servers: ['s'], maxBytes: 1000, mimeTypes: ['text/*'] } },
      agents: {
        small: { servers: ['s'], maxBytes: 400, mimeTypes: ['text/markdown'] },
        open: { servers: ['s'] },
      },
    });
    const read = (agentId: string) =>
      layered.authorize({ pipelineId: 'p', agentId, server: 's', operation: 'read', uri: 'x://a' });
    expect(read('small')).toEqual({
      allowed: true,
      limits: { maxBytes: 400, mimeTypes: [['text/*'], ['text/markdown']] },
    });
    expect(read('open')).toEqual({ allowed: true, limits: { maxBytes: 1000, mimeTypes: [['text/*']] } });
    const unlimited = new AccessPolicy({
      bindings: { p: { servers: ['s'] } },
      agents: { a: { servers: ['s'] } },
    });
    expect(
      unlimited.authorize({ pipelineId: 'p', agentId: 'a', server: 's', operation: 'read', uri: 'x://a' }),
    ).toEqual({ allowed: true, limits: { mimeTypes: [] } });
  });

  it('a server entry’s own fields override the binding’s, field by field', () => {
    const layered = new AccessPolicy({
      bindings: {
        p: {
          servers: [{ name: 's', maxBytes: 50, prompts: ['own_*'] }, 't'],
          maxBytes: 500,
          mimeTypes: ['text/*'],
          prompts: ['shared_*'],
          tools: ['echo'],
          operations: ['read', 'prompt', 'tool'],
        },
      },
    });
    const authorize = (server: string, extra: Partial<Parameters<AccessPolicy['authorize']>[0]>) =>
      layered.authorize({ pipelineId: 'p', server, operation: 'read', uri: 'x://a', ...extra });
    expect(authorize('s', {})).toEqual({ allowed: true, limits: { maxBytes: 50, mimeTypes: [['text/*']] } });
    expect(authorize('t', {})).toEqual({ allowed: true, limits: { maxBytes: 500, mimeTypes: [['text/*']] } });
    expect(authorize('s', { operation: 'prompt', prompt: 'own_x' }).allowed).toBe(true);
    expect(authorize('s', { operation: 'prompt', prompt: 'shared_x' }).allowed).toBe(false);
    expect(authorize('t', { operation: 'prompt', prompt: 'shared_x' }).allowed).toBe(true);
    expect(authorize('t', { operation: 'tool', tool: 'echo' }).allowed).toBe(true);
    expect(authorize('t', { operation: 'tool', tool: 'other' }).allowed).toBe(false);
    expect(authorize('t', { operation: 'list' }).allowed).toBe(false);
  });

  it('a bad binding is INVALID_OPTION naming the field', () => {
    expect(
      () => new AccessPolicy({ bindings: { a: { servers: ['x'], operations: ['write' as never] } } }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', field: 'policy.bindings.a.operations.0' }));
  });
});
