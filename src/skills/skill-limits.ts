import { z } from 'zod';

/**
 * What a host lets one skill be, checked from its entry before any file is read (and, for the
 * frontmatter, from the SKILL.md before its YAML is parsed). The file defaults are the skills
 * extension's own per-skill limits ("Limits"): 512 files, 16 MiB in all.
 */
export const skillLimitsSchema = z.strictObject({
  /** Most files in one skill's manifest, SKILL.md included. */
  maxFiles: z.number().int().positive().default(512),
  /** Most bytes one skill's files may add up to (the sum of the manifest's sizes). */
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /** Most skills one turn loads; further skill attachments are errors (LIMIT_EXCEEDED). */
  maxPerTurn: z.number().int().positive().default(8),
  /**
   * Most UTF-8 bytes of a SKILL.md's frontmatter block (between its `---` lines), checked before
   * the YAML is parsed. The Agent Skills fields (a 64-character name, a 1,024-character
   * description, a 500-character compatibility note, a small metadata map) fit in a few KiB;
   * YAML parsing cost grows faster than the text, so a bigger block is refused, not parsed.
   */
  maxFrontmatterBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /**
   * Most mapping keys in a SKILL.md's frontmatter, counted before the YAML is parsed (every `:`
   * value indicator and `?` key indicator the YAML lexer finds, nested maps included): the
   * parse checks each key against the others of its map, so its cost grows with the square of
   * their number.
   */
  maxFrontmatterKeys: z.number().int().positive().default(256),
});

export type SkillLimits = z.output<typeof skillLimitsSchema>;
export type SkillLimitsInput = z.input<typeof skillLimitsSchema>;
