import type { CappedReadResult } from '../mcp/cap-read-result.js';
import type { CallOptions } from '../mcp/operation-schemas.js';
import type { ServerOperations } from '../mcp/server-operations.js';
import type { Skill } from '../mcp/skill-schemas.js';
import { checkSkillEntry } from './check-skill-entry.js';
import type { SkillLimits } from './skill-limits.js';
import { skillLimitsSchema } from './skill-limits.js';
import { listedSkillFile, verifySkillFile } from './verify-skill-file.js';

/**
 * Reads one supporting file of a skill, only when asked (skills are never prefetched): the file
 * must be in the skill's manifest (`entry`, or a fresh skills/get), and is verified against its
 * digest and size before it is returned. Through a `PolicyBoundServers` the binding decides as
 * for any read; the read goes to the skill's own server and nowhere else.
 */
export async function readSkillFile(
  servers: Pick<ServerOperations, 'getSkill' | 'readResource'>,
  request: { readonly server: string; readonly skill: string | Skill; readonly file: string },
  options: CallOptions & { readonly limits?: Partial<SkillLimits> } = {},
): Promise<CappedReadResult> {
  const { limits, ...callOptions } = options;
  const skill =
    typeof request.skill === 'string'
      ? await servers.getSkill(request.server, request.skill, callOptions)
      : request.skill;
  const resolvedLimits = skillLimitsSchema.parse(limits ?? {});
  checkSkillEntry(request.server, skill, resolvedLimits);
  listedSkillFile(request.server, skill, request.file);
  const read = await servers.readResource(request.server, request.file, callOptions);
  verifySkillFile(request.server, skill, read, request.file, resolvedLimits);
  return read;
}
