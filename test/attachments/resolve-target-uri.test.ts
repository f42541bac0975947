import { describe, expect, it } from 'vitest';
import { resolveTargetUri } from '../../src/attachments/resolve-target-uri.js';

describe('resolveTargetUri', () => {
  it('expands a template, percent-encoding its arguments (RFC 6570)', () => {
    expect(
      resolveTargetUri({
        server: 'gitnexus',
        template: 'gitnexus://repo/{name}/process/{processName}',
        arguments: { name: 'acme-shop', processName: 'Main → Salt' },
      }),
    ).toBe('gitnexus://repo/acme-shop/process/Main%20%E2%86%92%20Salt');
  });

  it('lets form-style query arguments be left out', () => {
    expect(
      resolveTargetUri({
        server: 's',
        template: 'logs://{service}{?since,level}',
        arguments: { service: 'api' },
      }),
    ).toBe('logs://api');
  });

  it('names the missing argument', () => {
    expect(() =>
      resolveTargetUri({
        server: 's',
        template: 'gitnexus://repo/{name}/cluster/{clusterName}',
        arguments: { name: 'a' },
      }),
    ).toThrow(expect.objectContaining({ code: 'TEMPLATE_ARGUMENT_MISSING', field: 'arguments.clusterName' }));
  });

  it('refuses a malformed template and a URI without a scheme or with spaces', () => {
    expect(() => resolveTargetUri({ server: 's', template: 'x://{name', arguments: {} })).toThrow(
      expect.objectContaining({ code: 'INVALID_URI' }),
    );
    expect(() => resolveTargetUri({ server: 's', uri: '/etc/passwd' })).toThrow(
      expect.objectContaining({ code: 'INVALID_URI' }),
    );
    expect(() => resolveTargetUri({ server: 's', uri: 'x://a b' })).toThrow(
      expect.objectContaining({ code: 'INVALID_URI' }),
    );
  });

  it('passes any scheme through untouched: URIs are opaque', () => {
    expect(resolveTargetUri({ server: 's', uri: 'http://127.0.0.1:9/secret' })).toBe(
      'http://127.0.0.1:9/secret',
    );
  });
});

describe('template arguments are checked against the template', () => {
  it('refuses an argument the template does not have, naming it and the ones it takes', () => {
    expect(() =>
      resolveTargetUri({
        server: 's',
        template: 'gitnexus://repo/{name}/context',
        arguments: { name: 'acme', nmae: 'typo' },
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'TEMPLATE_ARGUMENT_UNKNOWN',
        field: 'arguments.nmae',
        message: expect.stringContaining('it takes name'),
      }),
    );
  });

  it('accepts optional query arguments by name', () => {
    expect(
      resolveTargetUri({
        server: 's',
        template: 'logs://{service}{?since,level}',
        arguments: { service: 'api', level: 'warn' },
      }),
    ).toBe('logs://api?level=warn');
  });
});
