import type { ComposableAttachment } from './composable-attachment.js';

/**
 * Every fact of an attachment that its frame shows (frameResource): scope, server, URI, media
 * type, sha256, lastModified, and a skill's name and description. Renderings and frame costs kept
 * across turns are keyed by it, so that one SKILL.md framed as a skill and as a plain resource (or
 * one resource under two listings' lastModified) are two renderings, each costed as it renders.
 * JSON: no value a server sends can run into the next. Made each time (a memo per provenance
 * showed no win on bench turnGuard, docs/reuse.md).
 */
export function frameFactsKey(provenance: ComposableAttachment['provenance']): string {
  const { scope, server, uri, mimeType, sha256, lastModified, skill } = provenance;
  return JSON.stringify([
    scope,
    server,
    uri,
    mimeType,
    sha256,
    lastModified ?? null,
    skill?.name ?? null,
    skill?.description ?? null,
  ]);
}
