import { claudeCalibrationTable } from './claude-calibration-table.js';
import type { ClaudeCalibration, ClaudeTokenizerCalibration } from './claude-calibration-types.js';

export type {
  CalibrationSample,
  ClaudeCalibration,
  ClaudeTokenizerCalibration,
} from './claude-calibration-types.js';

/**
 * The calibration of a Claude model id: by its version (`claude-opus-4-7` → 4.7,
 * `claude-3-5-sonnet-…` → 3.5, `claude-sonnet-4-20250514` → 4.0); an id without a version the
 * table knows (a later model, an alias) gets the newest tokenizer, whose factors are the largest.
 */
export function claudeCalibrationFor(
  modelId: string,
  table: ClaudeCalibration = claudeCalibrationTable,
): ClaudeTokenizerCalibration {
  const [newest] = table.tokenizers;
  if (!newest) throw new RangeError('the Claude calibration table has no tokenizer');
  const version = claudeVersionOf(modelId);
  if (!version) return newest;
  for (const tokenizer of table.tokenizers) {
    const [major, minor] = tokenizer.fromVersion;
    if (version[0] > major || (version[0] === major && version[1] >= minor)) return tokenizer;
  }
  return table.tokenizers[table.tokenizers.length - 1] as ClaudeTokenizerCalibration;
}

/** The (major, minor) version in a Claude model id; undefined when it names none. */
export function claudeVersionOf(modelId: string): readonly [number, number] | undefined {
  const name = modelId.toLowerCase();
  const at = name.indexOf('claude-');
  if (at < 0) return undefined;
  // claude-opus-4-7, claude-3-5-sonnet-20241022, claude-sonnet-4-20250514, claude-3-opus, claude-2.1
  const match = /^claude-(?:[a-z]+-)?(\d{1,2})(?:[-.](\d{1,2})(?!\d))?/.exec(name.slice(at));
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0)];
}
