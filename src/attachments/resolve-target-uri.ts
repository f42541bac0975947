import { UriTemplate } from '@modelcontextprotocol/client';
import { ContextError } from '../errors.js';
import { requireBoundaryText } from '../options/boundary-text.js';
import type { AttachmentTarget } from '../types.js';

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":".
const schemePattern = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// Whitespace and control characters never appear in a URI (RFC 3986 §2).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this rejects.
const forbiddenCharacters = /[\s\u0000-\u001f\u007f]/;
// Form-style query and continuation expressions (RFC 6570 §3.2.8, §3.2.9) may be left out;
// every other expression names a required argument.
const expressionPattern = /\{([+#./;?&]?)([^}]*)\}/g;

/**
 * The concrete URI an attachment points at: its `uri`, or its template expanded with its
 * arguments. The URI stays opaque: it is checked for shape only, never dereferenced.
 */
export function resolveTargetUri(target: AttachmentTarget): string {
  if ('uri' in target) return checkUri(target.uri, 'uri');
  let template: UriTemplate;
  try {
    template = new UriTemplate(target.template);
  } catch (error) {
    throw new ContextError(
      'INVALID_URI',
      `template ${JSON.stringify(target.template)} is malformed: ${(error as Error).message}`,
      { field: 'template', value: target.template },
    );
  }
  // Like a prompt's arguments: a name the template does not have is a mistake, not a no-op.
  const known = new Set(templateVariables(target.template).map((variable) => variable.name));
  const unknown = Object.keys(target.arguments).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new ContextError(
      'TEMPLATE_ARGUMENT_UNKNOWN',
      `template ${target.template} has no argument(s) ${unknown.join(', ')} (it takes ${[...known].join(', ') || 'none'})`,
      { field: `arguments.${unknown[0]}`, value: target.template },
    );
  }
  const missing = templateVariables(target.template)
    .filter((variable) => variable.required && !(variable.name in target.arguments))
    .map((variable) => variable.name);
  if (missing.length > 0) {
    throw new ContextError(
      'TEMPLATE_ARGUMENT_MISSING',
      `template ${target.template} needs argument(s) ${missing.join(', ')}`,
      { field: `arguments.${missing[0]}`, value: target.template },
    );
  }
  const variables: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(target.arguments)) {
    for (const item of typeof value === 'string' ? [value] : value)
      refuseClimbing(target.template, name, item);
    variables[name] = typeof value === 'string' ? value : [...value];
  }
  return checkUri(template.expand(variables), 'template');
}

// --- Internal helpers ---

function checkUri(uri: string, field: string): string {
  // What a template expands to is a URI by the boundary's rule too (the stores index it).
  requireBoundaryText(uri, 'uri', field, 'INVALID_ATTACHMENT');
  if (!schemePattern.test(uri) || forbiddenCharacters.test(uri)) {
    throw new ContextError(
      'INVALID_URI',
      `${JSON.stringify(uri)} is not a URI (it needs a scheme and no spaces)`,
      {
        field,
        value: uri,
      },
    );
  }
  return uri;
}

/**
 * An argument is one value, never a path that walks: `..`, `.` or a separator next to them
 * (`../x`, `..%2Fx`, `..\\x`) would let a server that resolves paths serve something outside
 * what the template (and a grant on it) names. `?` and `#` end a path segment too: reserved
 * expansion (`{+path}`, RFC 6570 §3.2.3) passes them as they are, so `..?x` is a `..` segment.
 */
function refuseClimbing(template: string, name: string, value: string): void {
  const decoded = value.replace(/%2e/gi, '.').replace(/%2f|%5c|\\/gi, '/');
  if (decoded.split(/[/?#]/).some((segment) => segment === '..' || segment === '.')) {
    throw new ContextError(
      'INVALID_URI',
      `template ${template}: argument ${name} is a dot-segment path (${JSON.stringify(value)}); arguments cannot walk out of the template`,
      { field: `arguments.${name}`, value },
    );
  }
}

/** Every variable of a template, in order, and whether the turn must supply it. */
export function templateVariables(template: string): { name: string; required: boolean }[] {
  const variables: { name: string; required: boolean }[] = [];
  for (const [, operator, list] of template.matchAll(expressionPattern)) {
    for (const variable of (list ?? '').split(',')) {
      // Strip the prefix (":3") and explode ("*") modifiers of RFC 6570 §2.4.
      const name = variable.replace(/[:*].*$/, '').trim();
      if (name) variables.push({ name, required: operator !== '?' && operator !== '&' });
    }
  }
  return variables;
}
