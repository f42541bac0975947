/** What a secret turns into wherever it would have been shown: a URL's userinfo, a credential. */
export const redactedText = '[redacted]';

/**
 * `scheme://userinfo@`: the scheme (RFC 3986 §3.1), then everything up to the *last* `@` before
 * the path, query, fragment or the end of the word — where the WHATWG URL parser ends userinfo,
 * so an unencoded `@` in a password does not leave its tail showing.
 */
const userinfoPattern = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>`\\]*)@/gi;

/**
 * `text` with the userinfo of every URL in it replaced (`https://user:secret@host/mcp` →
 * `https://[redacted]@host/mcp`), and how many went. For text that is *shown* — errors, statuses,
 * option errors — not for resource content, whose URLs with userinfo may be what the document is
 * about (a configured URL's own userinfo is a configured secret and leaves content too). The whole
 * userinfo goes: a lone user name is often the token itself (`https://TOKEN@host`).
 */
export function redactUrlUserinfo(text: string): { readonly value: string; readonly count: number } {
  // Cheap test first: most shown text has no URL with userinfo at all.
  if (!text.includes('@') || !text.includes('://')) return { value: text, count: 0 };
  let count = 0;
  const value = text.replace(userinfoPattern, (match, scheme: string, userinfo: string) => {
    // Redacting shown text twice (an error's copy of a status) counts nothing the second time.
    if (userinfo === redactedText) return match;
    count++;
    return `${scheme}${redactedText}@`;
  });
  return { value: count === 0 ? text : value, count };
}
