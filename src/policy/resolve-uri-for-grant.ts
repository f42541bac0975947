/**
 * How a grant sees a URI (RFC 3986 §5.2.4, §6.2.2). A server that maps URIs onto paths may
 * decode `%2e`, `%2f`, `%5c` and treat `\` as a separator before it resolves `.` and `..`, so
 * `file:///srv/public/..%2Fsecret` can name a file outside `file:///srv/public/**`. The URI
 * itself stays opaque (it is sent to the server as it is); only the grant check looks deeper:
 *
 * - `plain`: no dot-segment even after decoding separators: the URI is matched as it is.
 * - `resolved`: it has dot-segments: it must match both as it is and resolved.
 * - `refused`: its `..` climb above the root of its path: no grant admits it.
 *
 * Empty segments (`//`) are dropped while resolving, as POSIX path resolution does: to a file
 * server `/srv/public//../x` is `/srv/x`, although RFC 3986 keeps it under `public` (the `..`
 * removes the empty segment). The view that climbs further decides.
 */
export type GrantView =
  | { readonly kind: 'plain' }
  | { readonly kind: 'resolved'; readonly uri: string }
  | { readonly kind: 'refused'; readonly reason: string };

export function resolveUriForGrant(uri: string): GrantView {
  const { prefix, path, suffix } = splitUri(uri);
  const decoded = decodeSeparators(path);
  const segments = decoded.split('/');
  if (!segments.some((segment) => segment === '.' || segment === '..')) return { kind: 'plain' };
  const output: string[] = [];
  const absolute = decoded.startsWith('/');
  // An absolute path's first segment is the empty one before its slash: skipped with the others.
  for (const segment of segments) {
    if (segment === '.' || segment === '') continue;
    if (segment === '..') {
      if (output.length === 0) return { kind: 'refused', reason: `${uri} climbs above the root of its path` };
      output.pop();
      continue;
    }
    output.push(segment);
  }
  // A trailing dot-segment or slash names a directory: keep the slash (RFC 3986 §5.2.4, step 2).
  const last = segments.at(-1);
  const trailing = last === '.' || last === '..' || last === '' ? '/' : '';
  const resolved = `${absolute ? '/' : ''}${output.join('/')}${output.length > 0 ? trailing : ''}`;
  return { kind: 'resolved', uri: `${prefix}${resolved}${suffix}` };
}

// --- Internal helpers ---

/** Scheme and authority; the path; query and fragment (RFC 3986 §3). */
function splitUri(uri: string): { prefix: string; path: string; suffix: string } {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(uri)?.[0] ?? '';
  let rest = uri.slice(scheme.length);
  let authority = '';
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#\\]/);
    authority = end === -1 ? rest : rest.slice(0, end + 2);
    rest = rest.slice(authority.length);
  }
  const queryAt = rest.search(/[?#]/);
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  return { prefix: scheme + authority, path, suffix: queryAt === -1 ? '' : rest.slice(queryAt) };
}

/** `%2e`, `%2f`, `%5c` (also double-encoded as `%25…`) and `\` as a server that decodes them sees them. */
function decodeSeparators(path: string): string {
  // However many times a server decodes: every round shortens the text, so this ends.
  let decoded = path;
  for (let next = decoded.replace(/%25(?=2e|2f|5c|25)/gi, '%'); next !== decoded; ) {
    decoded = next;
    next = decoded.replace(/%25(?=2e|2f|5c|25)/gi, '%');
  }
  return decoded.replace(/%2e/gi, '.').replace(/%2f/gi, '/').replace(/%5c/gi, '/').replace(/\\/g, '/');
}
