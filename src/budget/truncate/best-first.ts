/**
 * The chunks whose score is above zero, best first (ties in document order), one at a time: a
 * binary heap built in linear time, each next one in logarithmic time. A `relevant` cut stops
 * once its share is full, a few dozen chunks into bodies of hundreds: sorting them all was the
 * largest part of the cut (a comparator call per comparison, every turn). Undefined when none
 * are left.
 */
export function bestFirst(scores: Float64Array): () => number | undefined {
  const heap = new Int32Array(scores.length);
  let size = 0;
  for (let chunk = 0; chunk < scores.length; chunk++) if ((scores[chunk] as number) > 0) heap[size++] = chunk;
  // Whether chunk `a` comes before chunk `b`.
  const before = (a: number, b: number) => {
    const scoreA = scores[a] as number;
    const scoreB = scores[b] as number;
    return scoreA > scoreB || (scoreA === scoreB && a < b);
  };
  const siftDown = (from: number) => {
    let at = from;
    const chunk = heap[at] as number;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && before(heap[child + 1] as number, heap[child] as number)) child++;
      if (!before(heap[child] as number, chunk)) break;
      heap[at] = heap[child] as number;
      at = child;
    }
    heap[at] = chunk;
  };
  for (let at = (size >> 1) - 1; at >= 0; at--) siftDown(at);
  return () => {
    if (size === 0) return undefined;
    const best = heap[0] as number;
    size--;
    heap[0] = heap[size] as number;
    siftDown(0);
    return best;
  };
}
