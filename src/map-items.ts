/**
 * `items.map(each)`, with the same elements kind whichever tier of V8 runs it. In Node 20,
 * Array.prototype.map's builtin answers a PACKED array where TurboFan, inlining the same call,
 * makes a HOLEY one: an array a turn makes once changes map when the function making it is
 * optimized (or deoptimized), and every optimized function it is passed to then deopts on
 * "wrong map", hundreds of turns in. An array allocated at its length and filled by index is
 * HOLEY in both.
 */
export function mapItems<Item, Result>(
  items: readonly Item[],
  each: (item: Item, index: number) => Result,
): Result[] {
  const results = new Array<Result>(items.length);
  for (let index = 0; index < items.length; index++) results[index] = each(items[index] as Item, index);
  return results;
}
