/**
 * JSON texts of frozen arrays, by the array: a kept turn answers the same frozen blocks and trace
 * entries again (see the provider's kept turns), so their text is made once rather than on every
 * answer. Held only while the array is (a WeakMap): at most about the text the kept turns hold.
 */
const texts = new WeakMap<readonly unknown[], string>();

/** `JSON.stringify(array)`, made once per frozen array. An array that is not frozen may change: stringified each time. */
export function frozenJson(array: readonly unknown[]): string {
  if (!Object.isFrozen(array)) return JSON.stringify(array);
  let text = texts.get(array);
  if (text === undefined) {
    text = JSON.stringify(array);
    texts.set(array, text);
  }
  return text;
}
