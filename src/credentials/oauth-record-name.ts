import type { OAuthRecordKind, OAuthSubject } from './oauth-authorizer.js';

/**
 * The name a record is kept under: `oauth/<server>/<principal>/<kind>`, each part
 * percent-encoded so that no principal can name another's records; `-` for a shared server.
 */
export function oauthRecordName(subject: OAuthSubject, kind: OAuthRecordKind): string {
  const principal = subject.principal === undefined ? '-' : `~${encodeURIComponent(subject.principal)}`;
  return `oauth/${encodeURIComponent(subject.server)}/${principal}/${kind}`;
}
