import type fc from 'fast-check';

/**
 * How many runs a fuzz property gets, and from which seed.
 *
 * - `npm test` (CI): a fixed seed and each property's own small `ciRuns`, so a red run
 *   reproduces exactly and the whole fuzz set stays within its time share.
 * - `npm run fuzz` (opt-in): `FUZZ_RUNS` runs per unit of cost (default 20 000) from a random
 *   seed printed once, or `FUZZ_SEED` to replay one. fast-check prints the seed and the shrunk
 *   path of a counterexample; `FUZZ_SEED=<seed> npm run fuzz` replays it.
 *
 * `longShare` scales the opt-in runs for costly properties (the tokenizer-backed budget ones).
 */
export function fuzzParameters<Values>(
  ciRuns: number,
  { longShare = 1 }: { longShare?: number } = {},
): fc.Parameters<Values> {
  if (longRuns === undefined) return { numRuns: ciRuns, seed: ciSeed };
  return { numRuns: Math.max(ciRuns, Math.round(longRuns * longShare)), seed: longSeed };
}

// --- Internal helpers ---

/** Changing it is fine (say why in the commit); a seed per commit keeps failures comparable. */
const ciSeed = 20_261_201;

const longRuns = process.env.FUZZ_RUNS === undefined ? undefined : Number(process.env.FUZZ_RUNS) || 20_000;
const longSeed =
  process.env.FUZZ_SEED === undefined
    ? Math.floor(Math.random() * 2 ** 31)
    : Number.parseInt(process.env.FUZZ_SEED, 10);
if (longRuns !== undefined) {
  // Once per test file (each file is its own module graph): the seed to replay a failure with.
  console.log(`fuzz: FUZZ_RUNS=${longRuns} FUZZ_SEED=${longSeed}`);
}
