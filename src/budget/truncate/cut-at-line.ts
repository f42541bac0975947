/**
 * Line-aware cuts move to a line end only when one is near: at most this fraction of the shown
 * text is given up, so a document of long lines still fills its share.
 */
const maxDropFraction = 0.03;

/** Where to end a head cut: just after the last newline near the end of `shown`, else its end. */
export function lineEndBefore(shown: string): number {
  const newline = shown.lastIndexOf('\n');
  if (newline < 0 || newline === shown.length - 1) return shown.length;
  return shown.length - (newline + 1) <= shown.length * maxDropFraction ? newline + 1 : shown.length;
}

/** Where to start a tail cut: just after the first newline near the start of `shown`, else 0. */
export function lineStartAfter(shown: string): number {
  const newline = shown.indexOf('\n');
  if (newline < 0 || newline === shown.length - 1) return 0;
  return newline + 1 <= shown.length * maxDropFraction ? newline + 1 : 0;
}
