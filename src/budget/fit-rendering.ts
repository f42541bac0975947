/** What one rendering attempt reports: whether it fits, whatever else the caller keeps of it. */
export interface FitAttempt {
  readonly fits: boolean;
}

// Re-planning after the exact count is rare (token merges across cuts, line-aware cuts); a few
// rounds suffice because each one removes at least the measured excess. Should they not,
// nothing is injected rather than something over budget.
export const maxRefinements = 8;

/**
 * The one fit loop of the budget step: render with the current shares and count the result
 * with the tokenizer; while it is over (the turn's budget or a cap), let `shrink` take the
 * measured excess and try again. Returns the first attempt that fits, or undefined when
 * `maxRefinements` rounds did not get there or `shrink` has nothing left to take: the caller
 * then injects nothing rather than something over budget. Used by composeContext (resources)
 * and collectServerInstructions (the instructions section).
 */
export async function fitRendering<Attempt extends FitAttempt>(
  render: () => Promise<Attempt>,
  shrink: (attempt: Attempt) => boolean,
): Promise<Attempt | undefined> {
  for (let round = 0; round <= maxRefinements; round++) {
    const attempt = await render();
    if (attempt.fits) return attempt;
    if (round === maxRefinements || !shrink(attempt)) return undefined;
  }
  return undefined;
}
