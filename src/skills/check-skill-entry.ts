import { ContextError } from '../errors.js';
import type { Skill, SkillResource } from '../mcp/skill-schemas.js';
import type { SkillLimits } from './skill-limits.js';

/**
 * A skill entry the host may load: one with a manifest (a `"dynamic"` skill offers nothing to
 * verify against, and this host declines it, as the extension allows), within the host's caps
 * on file count and total size (checkable from the entry alone, before any read). Returns the
 * manifest.
 */
export function checkSkillEntry(server: string, skill: Skill, limits: SkillLimits): readonly SkillResource[] {
  if (skill.resources === 'dynamic') {
    throw new ContextError(
      'SKILL_INVALID',
      `skill ${skill.uri} on server "${server}" publishes no file manifest ("dynamic"): its content cannot be verified, so it is not loaded`,
      { server, value: skill.uri },
    );
  }
  const files = skill.resources;
  if (files.length > limits.maxFiles) {
    throw new ContextError(
      'LIMIT_EXCEEDED',
      `skill ${skill.uri} on server "${server}" has ${files.length} files, over the host's cap of ${limits.maxFiles}`,
      { server, field: 'skills.maxFiles', value: files.length },
    );
  }
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  if (bytes > limits.maxBytes) {
    throw new ContextError(
      'LIMIT_EXCEEDED',
      `skill ${skill.uri} on server "${server}" is ${bytes} bytes in all, over the host's cap of ${limits.maxBytes}`,
      { server, field: 'skills.maxBytes', value: bytes },
    );
  }
  return files;
}
