import { parse } from 'yaml';

/**
 * The YAML frontmatter of a `SKILL.md` (Agent Skills specification): the block between a first
 * line `---` and the next `---`, as a plain object; undefined when there is none or it is not a
 * mapping. YAML is parsed as data only (no custom tags), with a bound on aliases.
 */
export function parseFrontmatter(text: string): Record<string, unknown> | undefined {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return undefined;
  try {
    const value: unknown = parse(match[1] ?? '', { maxAliasCount: 100 });
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
