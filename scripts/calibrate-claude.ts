// `ANTHROPIC_API_KEY=… npm run calibrate:claude`: measures Claude's tokens against o200k_base over
// the fixed corpus (scripts/claude-calibration-corpus.ts) with Anthropic's messages/count_tokens,
// and writes src/budget/claude-calibration-table.ts, the table the library ships. Never run in
// CI (no network there); its table-writing logic is tested against a stub server.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type {
  CalibrationSample,
  ClaudeCalibration,
  ClaudeTokenizerCalibration,
} from '../src/budget/claude-calibration.js';
import { claudeCalibrationTable } from '../src/budget/claude-calibration-table.js';
import { createClaudeTokenizer } from '../src/budget/claude-tokenizer.js';
import { createTiktokenTokenizer } from '../src/budget/tiktoken-tokenizer.js';
import { calibrationCorpus } from './claude-calibration-corpus.js';

export const tablePath = fileURLToPath(new URL('../src/budget/claude-calibration-table.ts', import.meta.url));

// The least margin a measured table states: the corpus is small, the texts it meets are not it.
const leastMargin = 0.05;

export interface CalibrateOptions {
  readonly apiKey: string;
  /** Default https://api.anthropic.com. */
  readonly baseUrl?: string;
  /** Default today (UTC). */
  readonly date?: string;
  /** Which tokenizers to measure, and with which probe model; default the shipped table's. */
  readonly tokenizers?: readonly ClaudeTokenizerCalibration[];
  readonly corpus?: typeof calibrationCorpus;
}

/**
 * Every tokenizer's factors, measured: per script, Claude's tokens over o200k_base's summed over
 * its samples (JSON counts as code); then the margin is the largest shortfall of the calibrated
 * count against the measured one over the samples (at least `leastMargin`, rounded up to 0.01).
 */
export async function measureCalibration(options: CalibrateOptions): Promise<ClaudeCalibration> {
  const corpus = options.corpus ?? calibrationCorpus;
  const date = options.date ?? new Date().toISOString().slice(0, 10);
  const o200k = createTiktokenTokenizer();
  try {
    const tokenizers: ClaudeTokenizerCalibration[] = [];
    for (const template of options.tokenizers ?? claudeCalibrationTable.tokenizers) {
      const count = (text: string) => countTokens(options, template.probeModel, text);
      // count_tokens counts the message around the text too: what a one-token text costs, less one.
      const overhead = (await count('a')) - 1;
      const samples: CalibrationSample[] = [];
      for (const sample of corpus) {
        samples.push({
          id: sample.id,
          script: sample.script,
          o200k: await o200k.count(sample.text),
          claude: (await count(sample.text)) - overhead,
        });
      }
      const factorOf = (scripts: readonly CalibrationSample['script'][]) => {
        const of = samples.filter((sample) => scripts.includes(sample.script));
        const claude = of.reduce((sum, sample) => sum + sample.claude, 0);
        const base = of.reduce((sum, sample) => sum + sample.o200k, 0);
        return base === 0 ? 1 : roundUp(claude / base, 100);
      };
      const factors = {
        prose: factorOf(['prose']),
        code: factorOf(['code', 'json']),
        cjk: factorOf(['cjk']),
      };
      const unmargined = { ...template, factors, margin: 0, samples };
      const margin = await marginOf(unmargined, corpus, date, o200k);
      tokenizers.push({ ...unmargined, margin });
    }
    return {
      source: `Measured by scripts/calibrate-claude.ts against Anthropic's messages/count_tokens over its fixed corpus (${corpus.length} samples: prose, code, JSON, CJK), each tokenizer with its probe model.`,
      date,
      measured: true,
      tokenizers,
    };
  } finally {
    o200k.dispose();
  }
}

/** The table as claude-calibration-table.ts, formatted as the project's formatter leaves it. */
export function renderCalibrationTable(calibration: ClaudeCalibration): string {
  const lines = [
    '// Written by scripts/calibrate-claude.ts (npm run calibrate:claude, with ANTHROPIC_API_KEY); edit the script, not this file.',
    "import type { ClaudeCalibration } from './claude-calibration-types.js';",
    '',
    'export const claudeCalibrationTable: ClaudeCalibration = {',
    '  source:',
    `    ${quoted(calibration.source)},`,
    `  date: ${quoted(calibration.date)},`,
    `  measured: ${calibration.measured},`,
    '  tokenizers: [',
  ];
  for (const tokenizer of calibration.tokenizers) {
    const { prose, code, cjk } = tokenizer.factors;
    lines.push(
      '    {',
      `      id: ${quoted(tokenizer.id)},`,
      `      models: ${quoted(tokenizer.models)},`,
      `      fromVersion: [${tokenizer.fromVersion[0]}, ${tokenizer.fromVersion[1]}],`,
      `      probeModel: ${quoted(tokenizer.probeModel)},`,
      `      factors: { prose: ${prose}, code: ${code}, cjk: ${cjk} },`,
      `      margin: ${tokenizer.margin},`,
    );
    if (tokenizer.samples.length === 0) lines.push('      samples: [],');
    else {
      lines.push('      samples: [');
      for (const sample of tokenizer.samples)
        lines.push(
          `        { id: ${quoted(sample.id)}, script: ${quoted(sample.script)}, o200k: ${sample.o200k}, claude: ${sample.claude} },`,
        );
      lines.push('      ],');
    }
    lines.push('    },');
  }
  lines.push('  ],', '};', '');
  return lines.join('\n');
}

// --- Internal helpers ---

async function countTokens(options: CalibrateOptions, model: string, text: string): Promise<number> {
  const base = (options.baseUrl ?? 'https://api.anthropic.com').replace(/\/$/, '');
  const response = await fetch(`${base}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': options.apiKey,
      'anthropic-version': '2023-06-01',
    },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: text }] }),
  });
  if (!response.ok)
    throw new Error(`count_tokens for ${model} answered ${response.status}: ${await response.text()}`);
  const { input_tokens: tokens } = (await response.json()) as { input_tokens?: unknown };
  if (typeof tokens !== 'number') throw new Error(`count_tokens for ${model} answered no input_tokens`);
  return tokens;
}

/** The largest shortfall of the calibrated count against the measured one, over the samples. */
async function marginOf(
  tokenizer: ClaudeTokenizerCalibration,
  corpus: typeof calibrationCorpus,
  date: string,
  o200k: ReturnType<typeof createTiktokenTokenizer>,
): Promise<number> {
  const calibration: ClaudeCalibration = { source: '', date, measured: true, tokenizers: [tokenizer] };
  const claude = createClaudeTokenizer({ model: tokenizer.probeModel, calibration, o200k });
  let shortfall = 0;
  for (const sample of corpus) {
    const measured = tokenizer.samples.find((one) => one.id === sample.id)?.claude ?? 0;
    if (measured > 0) shortfall = Math.max(shortfall, 1 - (await claude.count(sample.text)) / measured);
  }
  return Math.max(leastMargin, roundUp(shortfall, 100));
}

function roundUp(value: number, per: number): number {
  return Math.ceil(value * per - 1e-9) / per;
}

function quoted(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

async function main(): Promise<void> {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (!apiKey) {
    process.stderr.write(
      'calibrate-claude: set ANTHROPIC_API_KEY (this script calls messages/count_tokens)\n',
    );
    process.exitCode = 1;
    return;
  }
  const calibration = await measureCalibration({
    apiKey,
    ...(process.env.ANTHROPIC_BASE_URL && { baseUrl: process.env.ANTHROPIC_BASE_URL }),
  });
  await writeFile(tablePath, renderCalibrationTable(calibration));
  process.stdout.write(`wrote ${tablePath}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
