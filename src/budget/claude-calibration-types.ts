import type { ScriptShares } from './script-shares.js';

/**
 * Claude tokens per o200k_base token, per script, for each Claude tokenizer: what the Claude
 * family counts with (no accurate offline tokenizer exists for Claude 3 and later).
 * scripts/calibrate-claude.ts measures it against Anthropic's `messages/count_tokens` and
 * writes claude-calibration-table.ts.
 */
export interface ClaudeCalibration {
  /** Where the figures come from, in words. */
  readonly source: string;
  /** When they were measured or gathered (YYYY-MM-DD). */
  readonly date: string;
  /** True only when scripts/calibrate-claude.ts measured them. */
  readonly measured: boolean;
  /** Newest tokenizer first. */
  readonly tokenizers: readonly ClaudeTokenizerCalibration[];
}

export interface ClaudeTokenizerCalibration {
  /** Short name, in the tokenizer's name and the trace (e.g. `claude-4.7`). */
  readonly id: string;
  /** The models that use it, in words. */
  readonly models: string;
  /** The first Claude version (major, minor) that uses it: a model at or after it uses this one. */
  readonly fromVersion: readonly [number, number];
  /** The model the calibration script counts with. */
  readonly probeModel: string;
  readonly factors: ScriptShares;
  /** Fraction of the budget held back: the calibrated count is at least the true one × (1 - margin). */
  readonly margin: number;
  /** The corpus samples measured (none for figures not measured by the script). */
  readonly samples: readonly CalibrationSample[];
}

export interface CalibrationSample {
  readonly id: string;
  readonly script: 'prose' | 'code' | 'json' | 'cjk';
  readonly o200k: number;
  readonly claude: number;
}
