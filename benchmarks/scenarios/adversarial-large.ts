import { type BoundaryLessKind, boundaryLessText } from '../../fixtures/boundary-less-text.js';
import { fitResource, median, round, withEncoderLoaded, withTokenizer } from '../support/context-bench.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

/**
 * `adversarial` at the sizes a hostile server sends: 5 MB and 20 MB bodies without pre-tokenizer
 * boundaries (one letter, base64, CJK), each against ordinary text of the same size (the
 * fixture's prose line, repeated). Two figures per body, each the median of several cold runs
 * (a new tokenizer each, so no count or piece is kept from before; each run reads the body from
 * a different offset, so the byte-pair encoder's window cache has not merged those windows):
 * - `share_ms` (wall) and `share_cpu_ms`: the cold count at an 8k share,
 *   `encodeWithin(body, 8000, 'start')`, what the budget step pays to learn a body does not fit
 *   and where to cut it; `share_ratio` compares CPU times;
 * - `fit_ms`: the whole budget step for one such resource in 8k tokens (hash, convert, escape,
 *   count, cut, render: fitResource), which also pays for reading the whole body once.
 * Target: a share's count within 2× of ordinary text's (before issue 32, 4 MB of one letter took
 * 2.8 s where ordinary text took milliseconds). `--quick` measures 1 MB bodies only.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const rounds = options.quick ? 3 : 7;
  const sizes = options.quick ? [1] : [5, 20];
  const kinds: BoundaryLessKind[] = ['ordinary', 'one-letter', 'base64', 'cjk'];
  // Also prose whose words are almost all new (none in the piece cache): ordinary text at its
  // costliest, beside the fixture's prose line whose pieces are all met before.
  const bodyOf = (index: number, bytes: number) =>
    index < kinds.length ? boundaryLessText(kinds[index] as BoundaryLessKind, bytes) : proseOfNewWords(bytes);
  return withEncoderLoaded(async () => {
    // Every path compiled first (on bodies too small to be the measured ones).
    for (let index = 0; index <= kinds.length; index++) await measureOnce(bodyOf(index, 256 * 1024));
    const figures: Figures = {};
    let worst = 0;
    let worstFit = 0;
    for (const megabytes of sizes) {
      const bodies = [...kinds, 'new-words'].map((_, index) => bodyOf(index, megabytes * 1024 * 1024));
      const times = bodies.map(() => ({
        share: [] as number[],
        shareCpu: [] as number[],
        fit: [] as number[],
      }));
      // Round by round, every kind in turn: a shared machine's load falls on all of them alike.
      for (let round = 0; round < rounds; round++) {
        for (const [index, body] of bodies.entries()) {
          // Another offset each round: at most a few hundred characters shorter (none of these
          // bodies has a surrogate pair to cut).
          const measured = await measureOnce(body.slice(round * 97));
          times[index]?.share.push(measured.shareMs);
          times[index]?.shareCpu.push(measured.shareCpuMs);
          times[index]?.fit.push(measured.fitMs);
        }
      }
      const [ordinaryShare, ordinaryFit] = [median(times[0]?.shareCpu ?? []), median(times[0]?.fit ?? [])];
      figures[`share_ms_ordinary_${megabytes}MB`] = round(median(times[0]?.share ?? []));
      figures[`share_cpu_ms_ordinary_${megabytes}MB`] = round(ordinaryShare);
      figures[`fit_ms_ordinary_${megabytes}MB`] = round(ordinaryFit);
      const newWords = times[kinds.length];
      const newWordsShare = median(newWords?.shareCpu ?? []);
      figures[`share_ms_new_words_${megabytes}MB`] = round(median(newWords?.share ?? []));
      figures[`share_cpu_ms_new_words_${megabytes}MB`] = round(newWordsShare);
      for (const [index, kind] of kinds.entries()) {
        if (index === 0) continue;
        const label = `${kind.replace('-', '_')}_${megabytes}MB`;
        const [share, fit] = [median(times[index]?.shareCpu ?? []), median(times[index]?.fit ?? [])];
        const ratio = share / Math.max(0.01, ordinaryShare);
        const fitRatio = fit / Math.max(0.01, ordinaryFit);
        figures[`share_ms_${label}`] = round(median(times[index]?.share ?? []));
        figures[`share_cpu_ms_${label}`] = round(share);
        figures[`share_ratio_${label}`] = round(ratio);
        figures[`fit_ms_${label}`] = round(fit);
        figures[`fit_ratio_${label}`] = round(fitRatio);
        worst = Math.max(worst, ratio);
        worstFit = Math.max(worstFit, fitRatio);
        figures[`share_ratio_${label}_vs_new_words`] = round(share / Math.max(0.01, newWordsShare));
      }
    }
    figures.ratio = round(worst);
    figures.fitRatio = round(worstFit);
    figures.target = 'an 8k share of a boundary-less body counted within 2× the time of ordinary text';
    figures.met = worst <= 2;
    return figures;
  });
}

/**
 * One cold share count and one cold budget step of `text`, each with a new tokenizer, after a
 * GC. The share's count is a few milliseconds: its CPU time (this process's, a shared machine's
 * other load left out) is what the ratio compares; its wall time is reported beside it.
 */
async function measureOnce(text: string): Promise<{ shareMs: number; shareCpuMs: number; fitMs: number }> {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  const [shareMs, shareCpuMs] = await withTokenizer(async (tokenizer) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const share = await tokenizer.encodeWithin?.(text, 8000, 'start');
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (!share || share.tokens.length <= 8000) throw new Error('the share was not counted');
    return [elapsed, (used.user + used.system) / 1000];
  });
  collect?.();
  const fitMs = await withTokenizer(async (tokenizer) => {
    const started = performance.now();
    const composed = await fitResource(text, tokenizer, 8000);
    const elapsed = performance.now() - started;
    if (composed.usedTokens > 8000) throw new Error('over budget');
    return elapsed;
  });
  return { shareMs, shareCpuMs, fitMs };
}

export const readme: ReadmeRow = {
  what: '5 MB and 20 MB of one letter, base64 and CJK: a cold count at an 8k share, against ordinary text of the same size',
  result: (figures) =>
    `at worst ${figures.ratio}× ordinary text by CPU time (20 MB: one letter ${figures.share_ratio_one_letter_20MB}×, base64 ${figures.share_ratio_base64_20MB}×, CJK ${figures.share_ratio_cjk_20MB}× of ${figures.share_cpu_ms_ordinary_20MB} ms; against prose of new words ${figures.share_ratio_one_letter_20MB_vs_new_words}×, ${figures.share_ratio_base64_20MB_vs_new_words}×, ${figures.share_ratio_cjk_20MB_vs_new_words}×); the whole budget step at worst ${figures.fitRatio}×`,
  target: '≤ 2× ordinary text',
};

/**
 * About `bytes` of prose in words made of random syllables (lines of about 80 characters,
 * sentences with commas): its pieces are almost never met twice, so every one is byte-pair
 * encoded, as a cold tokenizer does with a text of its own vocabulary.
 */
function proseOfNewWords(bytes: number): string {
  const syllables = [
    'ka',
    'ri',
    'sto',
    'men',
    'dal',
    'vu',
    'pre',
    'lon',
    'ti',
    'gra',
    'es',
    'mo',
    'thu',
    'ne',
    'qui',
    'bar',
  ];
  const parts: string[] = [];
  let length = 0;
  let line = 0;
  let state = 12_345;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  while (length < bytes) {
    let word = '';
    for (let count = 2 + (next() % 3); count > 0; count--) word += syllables[next() % syllables.length];
    const random = next() % 16;
    const text = random === 0 ? `${word}. ` : random === 1 ? `${word}, ` : `${word} `;
    parts.push(text);
    length += text.length;
    line += text.length;
    if (line > 80) {
      parts.push('\n');
      length += 1;
      line = 0;
    }
  }
  return parts.join('').slice(0, bytes);
}
