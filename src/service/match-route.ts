import { ContextError } from '../index.js';
import type { ServiceRoute } from './service-route.js';

export interface RouteMatch {
  readonly route: ServiceRoute;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * The route for a method and path, with its path parameters decoded. A path no route has is
 * UNKNOWN_ROUTE (404); a path whose routes take other methods is METHOD_NOT_ALLOWED (405),
 * naming them.
 */
export function matchRoute(routes: readonly ServiceRoute[], method: string, pathname: string): RouteMatch {
  const segments = pathname.split('/');
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchPath(route.path, segments);
    if (!params) continue;
    if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params };
    allowed.push(route.method);
  }
  if (allowed.length > 0) {
    throw new ContextError(
      'METHOD_NOT_ALLOWED',
      `${method} ${pathname}: this path takes ${allowed.join(', ')}`,
      {
        field: 'method',
        value: method,
      },
    );
  }
  throw new ContextError('UNKNOWN_ROUTE', `no route ${pathname} (see /v1/openapi.json)`, {
    field: 'path',
    value: pathname.slice(0, 200),
  });
}

// --- Internal helpers ---

/** A template's segments: a literal, or the name of a parameter (`{server}`). */
type TemplatePart = { readonly literal: string } | { readonly parameter: string };

/** Each template split once, not on every request. */
const compiled = new Map<string, readonly TemplatePart[]>();

function partsOf(template: string): readonly TemplatePart[] {
  let parts = compiled.get(template);
  if (parts === undefined) {
    parts = template.split('/').map((part) => {
      const name = /^\{(.+)\}$/.exec(part)?.[1];
      return name === undefined ? { literal: part } : { parameter: name };
    });
    compiled.set(template, parts);
  }
  return parts;
}

function matchPath(template: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = partsOf(template);
  if (parts.length !== segments.length) return undefined;
  // Literals first: most templates are ruled out without decoding anything.
  for (const [index, part] of parts.entries()) {
    if ('literal' in part && part.literal !== segments[index]) return undefined;
  }
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index] as string;
    if ('literal' in part) continue;
    const name = part.parameter;
    if (segment === '') return undefined;
    try {
      params[name] = decodeURIComponent(segment);
    } catch {
      throw new ContextError('INVALID_REQUEST', `path.${name}: not a valid percent-encoded segment`, {
        field: `path.${name}`,
      });
    }
  }
  return params;
}
