// Written by scripts/calibrate-claude.ts (npm run calibrate:claude, with ANTHROPIC_API_KEY); edit the script, not this file.
import type { ClaudeCalibration } from './claude-calibration-types.js';

export const claudeCalibrationTable: ClaudeCalibration = {
  source:
    'Not yet measured by scripts/calibrate-claude.ts: figures from the field as gathered in issue 35. Tools correct o200k_base by about ×1.18 for Claude 3 to 4.6 (taken for every script) and ×1.53 for Opus 4.7 and later; Anthropic gives the new tokenizer against the old as ~1.45× on English prose, ~1.2× on Python (~1.1× on TypeScript) and 1.0× on CJK, so the new factors are 1.18 × those. The margin is wide while unmeasured.',
  date: '2026-12-04',
  measured: false,
  tokenizers: [
    {
      id: 'claude-4.7',
      models: 'Claude Opus 4.7 and later',
      fromVersion: [4, 7],
      probeModel: 'claude-opus-4-7',
      factors: { prose: 1.72, code: 1.42, cjk: 1.18 },
      margin: 0.15,
      samples: [],
    },
    {
      id: 'claude-3',
      models: 'Claude 3 to 4.6',
      fromVersion: [3, 0],
      probeModel: 'claude-sonnet-4-5',
      factors: { prose: 1.18, code: 1.18, cjk: 1.18 },
      margin: 0.15,
      samples: [],
    },
  ],
};
