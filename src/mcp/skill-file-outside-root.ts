/**
 * Why a skill's file URI reaches outside the skill's root, or undefined when it lies inside: it
 * must be `root/` followed by plain names. A server that maps skill URIs onto paths may decode
 * `%2e`, `%2f`, `%5c` (as often as they are encoded: `%252e` is `%2e` once decoded) and take `\`
 * for a separator, so every segment is judged as decoded to the end: none may be `.`, `..` or
 * empty (`//` restarts a path at its root for many resolvers), and no `\` may appear in any form.
 * Another scheme, another authority or an absolute path is not under `root/` at all.
 */
export function skillFileOutsideRoot(root: string, uri: string): string | undefined {
  if (!uri.startsWith(`${root}/`)) return `${uri} lies outside ${root}`;
  const rest = fullyDecoded(uri.slice(root.length + 1));
  if (rest.includes('\\')) return `${uri} holds a backslash, a separator to some servers`;
  // A query or fragment is not a path: only the path part is judged.
  const path = rest.split(/[?#]/, 1)[0] ?? '';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return `${uri} has a dot or empty segment after ${root}/ (decoded, it can climb out of the skill)`;
  }
  return undefined;
}

// --- Internal helpers ---

/** Percent-decoded until nothing changes; malformed escapes are left as they are. */
function fullyDecoded(text: string): string {
  let decoded = text;
  // Each round shortens the text (every escape is three characters for one): this ends.
  for (;;) {
    const next = decoded.replace(/%[0-9a-f]{2}/gi, (percent) => {
      const code = Number.parseInt(percent.slice(1), 16);
      // Bytes past ASCII are kept escaped: only ASCII separators and dots matter here.
      return code < 0x80 ? String.fromCharCode(code) : percent;
    });
    if (next === decoded) return decoded;
    decoded = next;
  }
}
