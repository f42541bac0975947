import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

/** A read result of one text item: what the ContentCache tests store and read back. */
export const body = (text: string): ReadResourceResult => ({
  contents: [{ uri: 'x://a', mimeType: 'text/plain', text }],
});

/** The text of a result made by `body`. */
export const textOf = (result: ReadResourceResult) => (result.contents[0] as { text: string }).text;

/** A read the test finishes by hand, to place invalidations and other reads inside it. */
export function deferredRead() {
  let resolve: (result: ReadResourceResult) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<ReadResourceResult>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { read: () => promise, resolve, reject };
}
