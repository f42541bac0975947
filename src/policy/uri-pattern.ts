import { resolveUriForGrant } from './resolve-uri-for-grant.js';

/**
 * URI patterns of an access binding. A pattern with `{…}` is an RFC 6570 URI template
 * (`gitnexus://repo/{name}/context`): `{var}` matches one segment, `{+var}` and `{#var}`
 * anything, `{?a,b}` an optional query. Any other pattern is a glob: `*` matches within one
 * `/`-separated segment, `**` across segments; every other character, `?` included (it
 * starts a URI's query), matches itself.
 *
 * Matching is by string against the URI as the server lists it; a URI with dot-segments (also
 * spelled `%2e`, `..%2F`, `..\`) must match resolved as well, and one that climbs above its
 * root matches nothing (`resolveUriForGrant`). The URI itself is never fetched or rewritten.
 */
export function compileUriPattern(pattern: string): RegExp {
  const body = pattern.includes('{') ? templateToRegExp(pattern) : globToRegExp(pattern, '[^/]*');
  return new RegExp(`^${body}$`, 'u');
}

/** Whether `uri` matches at least one pattern; `undefined` patterns admit everything. */
export function matchesAnyUriPattern(uri: string, patterns: readonly RegExp[] | undefined): boolean {
  return patterns === undefined || patterns.some((pattern) => pattern.test(uri));
}

/**
 * Whether a grant's patterns admit `uri`: as it is, and, when it has dot-segments, resolved
 * too (`resolveUriForGrant`); `undefined` patterns admit everything.
 */
export function matchesUriGrant(uri: string, patterns: readonly RegExp[] | undefined): boolean {
  if (patterns === undefined) return true;
  const view = resolveUriForGrant(uri);
  if (view.kind === 'refused') return false;
  return patterns.some((pattern) => pattern.test(uri) && (view.kind === 'plain' || pattern.test(view.uri)));
}

/** A name glob (prompts, tools): `*` matches any run of characters. */
export function compileNamePattern(pattern: string): RegExp {
  return new RegExp(`^${globToRegExp(pattern, '.*')}$`, 'u');
}

// --- Internal helpers ---

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function globToRegExp(pattern: string, star: string): string {
  return pattern
    .split('**')
    .map((part) => part.split('*').map(escapeRegExp).join(star))
    .join('.*');
}

const segment = '[^/?#]+';

function templateToRegExp(template: string): string {
  let result = '';
  let last = 0;
  for (const match of template.matchAll(/\{([+#./;?&]?)[^}]*\}/g)) {
    result += escapeRegExp(template.slice(last, match.index));
    result += expressionToRegExp(match[1] ?? '');
    last = match.index + match[0].length;
  }
  return result + escapeRegExp(template.slice(last));
}

/** RFC 6570 §3.2: what each operator's expansion can look like. */
function expressionToRegExp(operator: string): string {
  switch (operator) {
    case '+':
    case '#':
      return '.*';
    case '?':
    case '&':
      return '(?:[?&][^#]*)?';
    case '/':
      return `(?:/${segment})*`;
    case '.':
      return '(?:\\.[^/?#.]+)*';
    case ';':
      return '(?:;[^/?#]*)*';
    default:
      return segment;
  }
}
