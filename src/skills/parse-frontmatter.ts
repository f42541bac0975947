import { Lexer, parse } from 'yaml';
import { ContextError } from '../errors.js';
import type { SkillLimits } from './skill-limits.js';

/** The bounds a frontmatter is held to before it is parsed. */
export type FrontmatterLimits = Pick<SkillLimits, 'maxFrontmatterBytes' | 'maxFrontmatterKeys'>;

/**
 * The YAML frontmatter of a `SKILL.md` (Agent Skills specification): the block between a first
 * line `---` and the next `---`, as a plain object; undefined when there is none or it is not a
 * mapping. YAML is parsed as data only (no custom tags), with a bound on aliases, and only once
 * the block is within `limits` (bytes, then keys): a block over either is LIMIT_EXCEEDED naming
 * the limit, never parsed (20,000 keys took the parser 4.2 s, with the event loop blocked).
 * `source` names the file and its server in that error.
 */
export function parseFrontmatter(
  text: string,
  limits: FrontmatterLimits,
  source: { readonly server: string; readonly uri: string },
): Record<string, unknown> | undefined {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return undefined;
  const block = match[1] ?? '';
  const bytes = Buffer.byteLength(block, 'utf8');
  if (bytes > limits.maxFrontmatterBytes) {
    throw overLimit(source, 'maxFrontmatterBytes', `is ${bytes} bytes`, limits.maxFrontmatterBytes, bytes);
  }
  // Within the byte cap, the lexer's pass over the whole block costs little.
  const keys = countKeyIndicators(block);
  if (keys > limits.maxFrontmatterKeys) {
    throw overLimit(source, 'maxFrontmatterKeys', `has ${keys} keys`, limits.maxFrontmatterKeys, keys);
  }
  try {
    const value: unknown = parse(block, { maxAliasCount: 100 });
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

// --- Internal helpers ---

/**
 * Mapping keys in YAML source, from the lexer's tokens (linear, no document built): each `:` value
 * indicator and `?` explicit-key indicator, which every key of a block or flow map has. A colon
 * inside a scalar (`http://host:80`, `"a: b"`) is part of the scalar's token, not counted.
 */
function countKeyIndicators(block: string): number {
  let keys = 0;
  for (const token of new Lexer().lex(block)) if (token === ':' || token === '?') keys += 1;
  return keys;
}

function overLimit(
  source: { readonly server: string; readonly uri: string },
  limit: keyof FrontmatterLimits,
  found: string,
  cap: number,
  value: number,
): ContextError {
  return new ContextError(
    'LIMIT_EXCEEDED',
    `${source.uri} on server "${source.server}": its frontmatter ${found}, over the host's cap of ${cap} (skills.${limit}); not parsed, not used`,
    { server: source.server, field: `skills.${limit}`, value },
  );
}
