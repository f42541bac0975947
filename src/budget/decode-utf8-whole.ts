const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * Decodes UTF-8 bytes cut out of a longer text: continuation bytes at the start and an
 * unfinished sequence at the end belong to characters that were cut, so they are dropped
 * instead of becoming U+FFFD.
 */
export function decodeUtf8Whole(bytes: Uint8Array): string {
  let start = 0;
  while (start < bytes.length && start < 3 && isContinuation(bytes[start] ?? 0)) start++;
  let end = bytes.length;
  // Walk back over at most three continuation bytes to the lead byte of the last character.
  let lead = end - 1;
  while (lead > start && end - lead < 4 && isContinuation(bytes[lead] ?? 0)) lead--;
  if (lead >= start) {
    const needed = sequenceLength(bytes[lead] ?? 0);
    if (needed > end - lead) end = lead;
  }
  return decoder.decode(bytes.subarray(start, end));
}

// --- Internal helpers ---

function isContinuation(byte: number): boolean {
  return (byte & 0b1100_0000) === 0b1000_0000;
}

function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if ((lead & 0b1110_0000) === 0b1100_0000) return 2;
  if ((lead & 0b1111_0000) === 0b1110_0000) return 3;
  if ((lead & 0b1111_1000) === 0b1111_0000) return 4;
  return 1;
}
