import { z } from 'zod';

/**
 * What a host lets one skill be, checked from its entry before any file is read. The defaults
 * are the skills extension's own per-skill limits ("Limits"): 512 files, 16 MiB in all.
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
});

export type SkillLimits = z.output<typeof skillLimitsSchema>;
export type SkillLimitsInput = z.input<typeof skillLimitsSchema>;
