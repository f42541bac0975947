/** The token arrays one after another, as one array (the array itself when there is one). */
export function concatTokens(parts: readonly Uint32Array[]): Uint32Array {
  if (parts.length === 1) return parts[0] as Uint32Array;
  let length = 0;
  for (const part of parts) length += part.length;
  const joined = new Uint32Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
