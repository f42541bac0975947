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
    // RFC 6570 §3.2.6, §3.2.5, §3.2.7: path segments, labels and parameters may also be empty.
    ['file:///srv{/path}', 'file:///srv/a/b', true],
    ['file:///srv{/path}', 'file:///srv', true],
    ['file:///srv{/path}', 'file:///srv/a?x', false],
    ['docs://readme{.ext}', 'docs://readme.md', true],
    ['docs://readme{.ext}', 'docs://readme', true],
    ['docs://readme{.ext}', 'docs://readme.md/x', false],
    ['docs://m{;v}', 'docs://m;v=1', true],
    ['docs://m{;v}', 'docs://m', true],
    ['docs://m{;v}', 'docs://mx', false],
    ['docs://q{&more}', 'docs://q&a=1', true],
    ['docs://d{#frag}', 'docs://d/any/thing', true],
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

// Policies are built inside each test below: mutation testing then sees which tests cover compiling them.
describe('AccessPolicy: unknown ids and servers', () => {
  const unknownIds = () =>
    new AccessPolicy({
      bindings: { support: { servers: ['gitnexus', '*'] }, billing: { servers: [{ name: 'ledger' }] } },
      agents: { reviewer: { servers: ['gitnexus'] } },
    });

  it('requireKnown passes a bound pipeline, with or without its bound agent', () => {
    expect(() => unknownIds().requireKnown({ pipelineId: 'support' })).not.toThrow();
    expect(() => unknownIds().requireKnown({ pipelineId: 'support', agentId: 'reviewer' })).not.toThrow();
  });

  it('an unknown pipeline is UNKNOWN_PIPELINE, naming the nearest binding and all of them', () => {
    expect(() => unknownIds().requireKnown({ pipelineId: 'suport' })).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_PIPELINE',
        field: 'pipelineId',
        value: 'suport',
        message:
          'no pipeline "suport": the access policy has no binding for it; did you mean "support"? (bindings: support, billing)',
      }),
    );
    expect(() => unknownIds().requireKnown({ pipelineId: 'zzzzzzzz' })).toThrow(
      expect.objectContaining({
        message:
          'no pipeline "zzzzzzzz": the access policy has no binding for it (bindings: support, billing)',
      }),
    );
  });

  it('an unknown agent is UNKNOWN_AGENT; a policy without agents says none', () => {
    expect(() => unknownIds().requireKnown({ pipelineId: 'support', agentId: 'reviewr' })).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_AGENT',
        field: 'agentId',
        value: 'reviewr',
        message:
          'no agent "reviewr": the access policy has no binding for it; did you mean "reviewer"? (agents: reviewer)',
      }),
    );
    const withoutAgents = new AccessPolicy({ bindings: { support: { servers: ['gitnexus'] } } });
    expect(() => withoutAgents.requireKnown({ pipelineId: 'support', agentId: 'x' })).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_AGENT',
        message: 'no agent "x": the access policy has no binding for it (agents: none)',
      }),
    );
  });

  it('refuseUnknownServers passes when every named server is configured; "*" always passes', () => {
    expect(() => unknownIds().refuseUnknownServers(['gitnexus', 'ledger'])).not.toThrow();
  });

  it('a binding naming an unconfigured server is UNKNOWN_SERVER at its place in the options', () => {
    expect(() => unknownIds().refuseUnknownServers(['gitnexus', 'ledgers'])).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_SERVER',
        field: 'policy.bindings.billing.servers.0',
        value: 'ledger',
        server: 'ledger',
        message:
          'policy.bindings.billing.servers.0: no MCP server named "ledger" is configured; did you mean "ledgers"? (configured: gitnexus, ledgers)',
      }),
    );
    expect(() => unknownIds().refuseUnknownServers(['ledger'])).toThrow(
      expect.objectContaining({
        field: 'policy.bindings.support.servers.0',
        message:
          'policy.bindings.support.servers.0: no MCP server named "gitnexus" is configured (configured: ledger)',
      }),
    );
    expect(() => unknownIds().refuseUnknownServers([])).toThrow(
      expect.objectContaining({
        message:
          'policy.bindings.support.servers.0: no MCP server named "gitnexus" is configured (configured: none)',
      }),
    );
  });

  it('agents’ servers are checked too', () => {
    const agentOnly = new AccessPolicy({
      bindings: { support: { servers: ['*'] } },
      agents: { reviewer: { servers: ['wiki'] } },
    });
    expect(() => agentOnly.refuseUnknownServers(['gitnexus'])).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_SERVER',
        field: 'policy.agents.reviewer.servers.0',
        value: 'wiki',
      }),
    );
  });
});

describe('AccessPolicy: decisions', () => {
  const layered = () =>
    new AccessPolicy({
      bindings: {
        support: {
          servers: [{ name: 'docs', resources: ['docs://public/**'] }, '*'],
          resources: ['any://**'],
          mimeTypes: ['text/*'],
        },
      },
      agents: { reviewer: { servers: ['docs'], resources: ['docs://public/a'] } },
    });

  it('allowsUri is whether a listed URI is visible: the named server’s grant beats the wildcard', () => {
    expect(layered().allowsUri({ pipelineId: 'support' }, 'docs', 'docs://public/a')).toBe(true);
    expect(layered().allowsUri({ pipelineId: 'support' }, 'docs', 'any://x')).toBe(false);
    expect(layered().allowsUri({ pipelineId: 'support' }, 'other', 'any://x')).toBe(true);
    expect(layered().allowsUri({ pipelineId: 'support' }, 'other', 'docs://public/a')).toBe(false);
    expect(
      layered().allowsUri({ pipelineId: 'support', agentId: 'reviewer' }, 'docs', 'docs://public/b'),
    ).toBe(false);
    expect(
      layered().allowsUri({ pipelineId: 'support', agentId: 'reviewer' }, 'docs', 'docs://public/a'),
    ).toBe(true);
  });

  it('an agent without a binding is denied, naming it', () => {
    expect(
      layered().authorize({ pipelineId: 'support', agentId: 'ghost', server: 'docs', operation: 'list' }),
    ).toEqual({ allowed: false, reason: 'agent "ghost" has no binding' });
  });

  it('a pipeline’s denial stands whatever its agent may do', () => {
    expect(
      layered().authorize({
        pipelineId: 'support',
        agentId: 'reviewer',
        server: 'docs',
        operation: 'read',
        uri: 'x://1',
      }),
    ).toEqual({ allowed: false, reason: 'pipeline "support" may not access x://1 on server "docs"' });
  });

  it('the decision an admitted request gets is frozen: no caller can widen it for the next one', () => {
    const policy = layered();
    const decision = policy.authorize({ pipelineId: 'support', server: 'docs', operation: 'list' });
    expect(decision).toStrictEqual({ allowed: true, limits: { mimeTypes: [['text/*']] } });
    if (!decision.allowed) throw new Error('expected an allowed decision');
    expect(Object.isFrozen(decision)).toBe(true);
    expect(Object.isFrozen(decision.limits)).toBe(true);
    expect(Object.isFrozen(decision.limits.mimeTypes)).toBe(true);
    expect(Object.isFrozen(decision.limits.mimeTypes[0])).toBe(true);
    expect(() => (decision.limits.mimeTypes[0] as string[]).push('image/*')).toThrow(TypeError);
    expect(policy.authorize({ pipelineId: 'support', server: 'docs', operation: 'list' })).toStrictEqual({
      allowed: true,
      limits: { mimeTypes: [['text/*']] },
    });
  });

  it('a grant admits what any one of its patterns admits', () => {
    const policy = new AccessPolicy({
      bindings: {
        p: { servers: ['s'], resources: ['a://x', 'b://y'], prompts: ['one', 'two'], tools: ['t1', 't2'] },
      },
    });
    const allowed = (request: Omit<Parameters<AccessPolicy['authorize']>[0], 'pipelineId' | 'server'>) =>
      policy.authorize({ pipelineId: 'p', server: 's', ...request }).allowed;
    expect([
      allowed({ operation: 'read', uri: 'b://y' }),
      allowed({ operation: 'read', uri: 'c://z' }),
    ]).toEqual([true, false]);
    expect([
      allowed({ operation: 'prompt', prompt: 'two' }),
      allowed({ operation: 'prompt', prompt: 'three' }),
    ]).toEqual([true, false]);
  });

  it('even a grant on everything ("**") does not admit a URI that climbs above its root', () => {
    const policy = new AccessPolicy({ bindings: { p: { servers: ['s'], resources: ['**'] } } });
    const reads = (uri: string) =>
      policy.authorize({ pipelineId: 'p', server: 's', operation: 'read', uri }).allowed;
    expect(reads('file:///srv/a/../b')).toBe(true);
    expect(reads('file:///srv/../../etc/passwd')).toBe(false);
  });

  it('a binding without byte cap has no maxBytes in its limits, not an undefined one', () => {
    const policy = new AccessPolicy({
      bindings: { p: { servers: ['s'] }, q: { servers: ['s'], maxBytes: 10 } },
    });
    expect(policy.authorize({ pipelineId: 'p', server: 's', operation: 'read' })).toStrictEqual({
      allowed: true,
      limits: { mimeTypes: [] },
    });
    expect(policy.authorize({ pipelineId: 'q', server: 's', operation: 'read' })).toStrictEqual({
      allowed: true,
      limits: { maxBytes: 10, mimeTypes: [] },
    });
  });

  it('a request without a uri, prompt or tool is decided on the operation alone', () => {
    const narrow = new AccessPolicy({
      bindings: {
        p: {
          servers: ['s'],
          resources: ['a://x'],
          prompts: ['p'],
          tools: ['t'],
          operations: ['list', 'prompt', 'tool'],
        },
      },
    });
    for (const operation of ['list', 'prompt', 'tool'] as const) {
      expect(narrow.authorize({ pipelineId: 'p', server: 's', operation }).allowed).toBe(true);
    }
    expect(narrow.authorize({ pipelineId: 'p', server: 's', operation: 'prompt', prompt: 'q' }).allowed).toBe(
      false,
    );
    expect(narrow.authorize({ pipelineId: 'p', server: 's', operation: 'tool', tool: 'u' }).allowed).toBe(
      false,
    );
    expect(narrow.authorize({ pipelineId: 'p', server: 's', operation: 'list', uri: 'a://y' }).allowed).toBe(
      false,
    );
  });

  it('without operations a binding allows list, read, subscribe and prompt, not tool', () => {
    const plain = new AccessPolicy({ bindings: { p: { servers: ['s'] } } });
    const allowed = (['list', 'read', 'subscribe', 'prompt', 'tool'] as const).map(
      (operation) => plain.authorize({ pipelineId: 'p', server: 's', operation }).allowed,
    );
    expect(allowed).toEqual([true, true, true, true, false]);
  });
});
