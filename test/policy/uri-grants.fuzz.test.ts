import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveTargetUri } from '../../src/attachments/resolve-target-uri.js';
import { ContextError } from '../../src/errors.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { resolveUriForGrant } from '../../src/policy/resolve-uri-for-grant.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';

/**
 * Attackers' spellings of a path: every way a server that maps URIs onto files may see a
 * separator or a dot. Strung together at random after a granted prefix (or as a template
 * argument), they also spell the double-encoded and mixed forms (`%25` + `2e`, `.` + `%2E`).
 */
const pieces = [
  '.',
  '..',
  '/',
  '//',
  '\\',
  '%2e',
  '%2E',
  '%2f',
  '%2F',
  '%5c',
  '%5C',
  '%25',
  '%',
  '2e',
  '2f',
  '5c',
  '25',
  'secret',
  'keys.txt',
  'a',
  ';',
  '?',
  '#',
  '%3f',
  '%23',
  '..;',
];
const pathArbitrary = fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((parts) => parts.join(''));

/**
 * What a file-serving server makes of a URI's path, independently of the code under test:
 * percent-decoding repeated until nothing changes (a server may decode more than once),
 * backslashes as separators, then either RFC 3986 §5.2.4 dot-segment removal (empty segments
 * kept, as WHATWG URL does) or POSIX path normalization (`//` collapsed, as `path.normalize`
 * and file systems do). Query and fragment are split off first, on the raw URI.
 */
function serverViews(uri: string, prefixLength: number): string[] {
  const afterAuthority = uri.slice(prefixLength);
  const queryAt = afterAuthority.search(/[?#]/);
  let path = queryAt === -1 ? afterAuthority : afterAuthority.slice(0, queryAt);
  for (let previous = ''; previous !== path; ) {
    previous = path;
    path = path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
  path = path.replaceAll('\\', '/');
  return [removeDotSegments(path), posix.normalize(path)];
}

/** RFC 3986 §5.2.4, literally (the reference algorithm; `..` above the root stays at the root). */
function removeDotSegments(path: string): string {
  let input = path;
  let output = '';
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '/..') {
      input = '/';
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const segment = next === -1 ? input : input.slice(0, next);
      output += segment;
      input = input.slice(segment.length);
    }
  }
  return output;
}

/** Whether a server's view of a path stays under `root` (a directory, without its trailing slash). */
const inside = (view: string, root: string) => view === root || view.startsWith(`${root}/`);

const grants = [
  { prefix: 'file:///srv/public/', authority: 'file://', root: '/srv/public' },
  { prefix: 'docs://host/a/b/', authority: 'docs://host', root: '/a/b' },
];

const policy = new AccessPolicy({
  bindings: {
    support: {
      servers: [
        { name: 'files', resources: ['file:///srv/public/**'] },
        { name: 'docs', resources: ['docs://host/a/b/**'] },
        { name: 'repos', resources: ['gitnexus://repo/acme/{name}/context'] },
        { name: 'trees', resources: ['file:///srv/public/{+path}'] },
      ],
    },
  },
});
const admits = (server: string, uri: string) =>
  policy.authorize({ pipelineId: 'support', server, operation: 'read', uri }).allowed;

describe('fuzz: URI grants cannot be walked out of', () => {
  it('property: a URI a prefix grant admits stays under the prefix in every server view', () => {
    fc.assert(
      fc.property(fc.constantFrom(...grants), pathArbitrary, (grant, path) => {
        const uri = `${grant.prefix}${path}`;
        if (!admits(grant.prefix.startsWith('file:') ? 'files' : 'docs', uri)) return;
        for (const view of serverViews(uri, grant.authority.length))
          expect(view, uri).toSatisfy((value: string) => inside(value, grant.root));
      }),
      fuzzParameters(3000),
    );
  });

  it('property: a URI without dot-segments or encoded separators under the prefix is still admitted', () => {
    const plainSegment = fc.stringMatching(/^[a-z0-9_-][a-z0-9._-]{0,8}$/).filter((s) => !/^\.+$/.test(s));
    fc.assert(
      fc.property(
        fc.constantFrom(...grants),
        fc.array(plainSegment, { minLength: 1, maxLength: 5 }),
        (grant, segments) => {
          const uri = `${grant.prefix}${segments.join('/')}`;
          expect(admits(grant.prefix.startsWith('file:') ? 'files' : 'docs', uri)).toBe(true);
        },
      ),
      fuzzParameters(500),
    );
  });

  it('property: normalization is idempotent and what it resolves to has no dot-segment left', () => {
    fc.assert(
      fc.property(fc.constantFrom(...grants), pathArbitrary, (grant, path) => {
        const view = resolveUriForGrant(`${grant.prefix}${path}`);
        if (view.kind !== 'resolved') return;
        const again = resolveUriForGrant(view.uri);
        expect(again.kind === 'plain' || (again.kind === 'resolved' && again.uri === view.uri)).toBe(true);
      }),
      fuzzParameters(3000),
    );
  });

  it('property: a template argument never climbs out of the template (and of a grant on it)', () => {
    const templates = [
      { template: 'file:///srv/public/{name}', authority: 'file://', root: '/srv/public', server: 'trees' },
      { template: 'file:///srv/public/{+path}', authority: 'file://', root: '/srv/public', server: 'trees' },
      { template: 'file:///srv/public{/path*}', authority: 'file://', root: '/srv/public', server: 'trees' },
      {
        template: 'gitnexus://repo/acme/{name}/context',
        authority: 'gitnexus://repo',
        root: '/acme',
        server: 'repos',
      },
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...templates),
        fc.oneof(pathArbitrary, fc.array(pathArbitrary, { minLength: 1, maxLength: 3 })),
        ({ template, authority, root, server }, value) => {
          const variable = /\{[+/]?(\w+)/.exec(template)?.[1] ?? '';
          let uri: string;
          try {
            uri = resolveTargetUri({ server, template, arguments: { [variable]: value } });
          } catch (error) {
            expect(ContextError.isInstance(error), String(error)).toBe(true);
            return;
          }
          // Expanded and percent-decoded once, as a server that decodes once sees it: never out.
          const decodedOnce = serverViewsDecodedOnce(uri, authority.length);
          for (const view of decodedOnce) expect(view, uri).toSatisfy((v: string) => inside(v, root));
          // However many times a server decodes: out only if the grant refuses it.
          if (!admits(server, uri)) return;
          for (const view of serverViews(uri, authority.length)) {
            expect(view, uri).toSatisfy((v: string) => inside(v, root));
          }
        },
      ),
      fuzzParameters(3000),
    );
  });
});

function serverViewsDecodedOnce(uri: string, prefixLength: number): string[] {
  const afterAuthority = uri.slice(prefixLength);
  const queryAt = afterAuthority.search(/[?#]/);
  const raw = queryAt === -1 ? afterAuthority : afterAuthority.slice(0, queryAt);
  const path = raw
    .replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replaceAll('\\', '/');
  return [removeDotSegments(path), posix.normalize(path)];
}
