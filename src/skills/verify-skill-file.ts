import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ContextError } from '../errors.js';
import { skillRootOf } from '../mcp/parse-skill-entry.js';
import { skillFileOutsideRoot } from '../mcp/skill-file-outside-root.js';
import type { Skill, SkillResource } from '../mcp/skill-schemas.js';
import { type FrontmatterLimits, parseFrontmatter } from './parse-frontmatter.js';

/** A read as verification takes it: the contents, and whether a byte cap cut them. */
export interface ReadToVerify {
  readonly contents: readonly ({ readonly uri: string } & (
    | { readonly text: string }
    | { readonly blob: string }
  ))[];
  readonly truncation?: unknown;
}

/**
 * Verifies a file read for a skill against the entry the host holds (skills extension,
 * "Integrity and Verification"): the file must be listed in the manifest, its raw bytes must have
 * the listed size and sha256 digest, and for the `SKILL.md` its frontmatter must equal the
 * entry's field by field. Any difference is SKILL_MISMATCH and the content must not be used; a
 * frontmatter over `limits` is LIMIT_EXCEEDED, before its YAML is parsed.
 * (A match proves consistency with the entry, not trustworthiness: the content stays data.)
 */
export function verifySkillFile(
  server: string,
  skill: Skill,
  read: ReadToVerify,
  fileUri: string,
  limits: FrontmatterLimits,
): void {
  const listed = listedSkillFile(server, skill, fileUri);
  const fail = (reason: string) => mismatch(server, skill, fileUri, reason);
  if (read.truncation !== undefined)
    throw fail(`${fileUri} was cut by the read's byte cap and cannot be verified`);
  if (read.contents.length !== 1)
    throw fail(`${fileUri} came back as ${read.contents.length} content items, not one file`);
  const item = read.contents[0] as ReadToVerify['contents'][number];
  const bytes = 'text' in item ? Buffer.from(item.text, 'utf8') : Buffer.from(item.blob, 'base64');
  if (bytes.length !== listed.size)
    throw fail(`${fileUri} is ${bytes.length} bytes, the manifest says ${listed.size}`);
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (digest !== listed.digest) throw fail(`${fileUri} does not match its manifest digest`);
  if (fileUri === skill.uri) {
    const frontmatter = parseFrontmatter(bytes.toString('utf8'), limits, { server, uri: fileUri });
    if (!isDeepStrictEqual(frontmatter, skill.frontmatter)) {
      throw fail('its SKILL.md frontmatter differs from the entry the server published');
    }
  }
}

/**
 * The manifest entry of a skill's file: while acting on a skill, only listed files may be read
 * ("The Acting Window and the Held Entry"); an unlisted one is a mismatch, and one outside the
 * skill's root SKILL_INVALID, before any read.
 */
export function listedSkillFile(server: string, skill: Skill, fileUri: string): SkillResource {
  // An entry the host holds may not have come through parseSkillEntry: the root rule again.
  const root = skillRootOf(skill.uri);
  const outside =
    root === undefined ? `${skill.uri} does not end in /SKILL.md` : skillFileOutsideRoot(root, fileUri);
  if (outside !== undefined) {
    throw new ContextError(
      'SKILL_INVALID',
      `skill ${skill.uri} on server "${server}": ${outside}; not read`,
      {
        server,
        value: fileUri,
      },
    );
  }
  const manifest = skill.resources === 'dynamic' ? [] : skill.resources;
  const listed = manifest.find((file) => file.uri === fileUri);
  if (!listed) throw mismatch(server, skill, fileUri, `${fileUri} is not in its manifest`);
  return listed;
}

// --- Internal helpers ---

function mismatch(server: string, skill: Skill, fileUri: string, reason: string): ContextError {
  return new ContextError('SKILL_MISMATCH', `skill ${skill.uri} on server "${server}": ${reason}; not used`, {
    server,
    value: fileUri,
  });
}
