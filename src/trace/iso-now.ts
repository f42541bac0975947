let lastMs = Number.NaN;
let lastIso = '';

/**
 * `new Date().toISOString()`, formatted once per millisecond: turns that start within the same
 * millisecond share the string (formatting it took ~0.46 µs, a tenth of a kept turn).
 */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}
