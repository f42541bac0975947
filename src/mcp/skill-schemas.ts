import { z } from 'zod';

/** The skills extension's identifier in `capabilities.extensions` (SEP-2640). */
export const skillsExtensionId = 'io.modelcontextprotocol/skills';

// Skills extension, "Skill Entries": `sha256:` and 64 lowercase hex characters.
const digestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a digest is "sha256:" and 64 lowercase hex');

export const skillResourceSchema = z.object({
  uri: z.string().min(1),
  digest: digestSchema,
  size: z.number().int().min(0),
});

/**
 * One `Skill` entry as a server sends it. An entry without `resources`, or with anything but an
 * array or `"dynamic"`, is invalid and must not be loaded ("Resources").
 */
export const skillSchema = z.object({
  uri: z.string().min(1),
  frontmatter: z.looseObject({ name: z.string().min(1), description: z.string() }),
  resources: z.union([z.array(skillResourceSchema), z.literal('dynamic')]),
});

// Results are read loosely (an unknown field is not an error); entries are checked one by one.
export const listSkillsResultSchema = z.looseObject({
  skills: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

export const getSkillResultSchema = z.looseObject({ skill: z.unknown() });

export type SkillResource = z.output<typeof skillResourceSchema>;
export type Skill = z.output<typeof skillSchema>;
