import { ContextError } from '../errors.js';
import { skillFileOutsideRoot } from './skill-file-outside-root.js';
import { type Skill, skillSchema } from './skill-schemas.js';

/**
 * Checks one `Skill` entry a server sent (skills extension, "Skill Entries" and "Resource
 * Mapping"): its shape, that its URI names a `SKILL.md` whose last directory is the skill's
 * `name`, and that every listed file lies inside the skill's directory (skillFileOutsideRoot: no
 * dot or empty segment, however encoded, no backslash) and the `SKILL.md` itself is listed. Anything else is SKILL_INVALID: such an entry must not be loaded.
 */
export function parseSkillEntry(server: string, entry: unknown, where: string): Skill {
  const parsed = skillSchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw invalid(server, where, `${path ? `${path}: ` : ''}${issue?.message ?? 'malformed'}`, entry);
  }
  const skill = parsed.data;
  const root = skillRootOf(skill.uri);
  if (root === undefined) throw invalid(server, where, `${skill.uri} does not end in /SKILL.md`, skill.uri);
  const lastSegment = root.slice(root.lastIndexOf('/') + 1);
  if (lastSegment !== skill.frontmatter.name) {
    throw invalid(
      server,
      where,
      `the skill's directory "${lastSegment}" is not its frontmatter name "${skill.frontmatter.name}"`,
      skill.uri,
    );
  }
  const rootOutside = skillFileOutsideRoot(/^.+?:\/\/[^/]*/.exec(root)?.[0] ?? root, skill.uri);
  if (rootOutside !== undefined) throw invalid(server, where, rootOutside, skill.uri);
  if (skill.resources !== 'dynamic') {
    for (const file of skill.resources) {
      const outside = skillFileOutsideRoot(root, file.uri);
      if (outside !== undefined) throw invalid(server, where, outside, file.uri);
    }
    if (!skill.resources.some((file) => file.uri === skill.uri)) {
      throw invalid(server, where, `its file manifest does not list ${skill.uri} itself`, skill.uri);
    }
  }
  return skill;
}

/** `skill://a/b/SKILL.md` → `skill://a/b`; undefined when the URI names no SKILL.md. */
export function skillRootOf(uri: string): string | undefined {
  const match = /^(.+:\/\/.+)\/SKILL\.md$/.exec(uri);
  return match?.[1];
}

// --- Internal helpers ---

function invalid(server: string, where: string, reason: string, value: unknown): ContextError {
  return new ContextError(
    'SKILL_INVALID',
    `server "${server}" sent an invalid skill entry (${where}): ${reason}`,
    {
      server,
      value: typeof value === 'string' ? value : where,
    },
  );
}
