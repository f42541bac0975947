/** How much of a text is prose, code and CJK, in o200k tokens (roughly): weights for calibrated factors. */
export interface ScriptShares {
  readonly prose: number;
  readonly code: number;
  readonly cjk: number;
}

export type Script = keyof ScriptShares;

// o200k_base's characters per token, roughly, for each script: shares are of tokens, as the
// factors they weigh are tokens per token.
const charsPerToken: ScriptShares = { prose: 4.2, code: 3.2, cjk: 1.1 };

// A line is code when at least this share of its non-space characters are code symbols.
const codeSymbolShare = 0.1;

/**
 * The shares of `text`, line by line: CJK characters (Han, kana, Hangul, full-width forms) are
 * CJK; the rest of a line is code when it is dense in code symbols (brackets, `;`, `=`, `<>`,
 * quotes and colons of JSON…), else prose. Shares sum to 1 (an empty text is all prose). One
 * pass over the text, no regular expression per character.
 */
export function scriptShares(text: string): ScriptShares {
  let prose = 0;
  let code = 0;
  let cjk = 0;
  let lineCjk = 0;
  let lineOther = 0;
  let lineSymbols = 0;
  const endLine = () => {
    cjk += lineCjk;
    if (lineOther > 0) {
      if (lineSymbols >= lineOther * codeSymbolShare) code += lineOther;
      else prose += lineOther;
    }
    lineCjk = 0;
    lineOther = 0;
    lineSymbols = 0;
  };
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit === 0x0a) {
      endLine();
      continue;
    }
    if (unit === 0x20 || unit === 0x09 || unit === 0x0d) continue;
    if (isCjk(unit)) lineCjk++;
    else {
      lineOther++;
      if (unit < 0x80 && codeSymbols[unit] === 1) lineSymbols++;
    }
  }
  endLine();
  const weights = {
    prose: prose / charsPerToken.prose,
    code: code / charsPerToken.code,
    cjk: cjk / charsPerToken.cjk,
  };
  const total = weights.prose + weights.code + weights.cjk;
  if (total === 0) return { prose: 1, code: 0, cjk: 0 };
  return { prose: weights.prose / total, code: weights.code / total, cjk: weights.cjk / total };
}

// --- Internal helpers ---

const codeSymbols = new Uint8Array(128);
for (const symbol of '{}[]();=<>_|&*/\\$#@^~`":+') codeSymbols[symbol.charCodeAt(0)] = 1;

function isCjk(unit: number): boolean {
  return (
    (unit >= 0x3040 && unit <= 0x30ff) || // kana
    (unit >= 0x3400 && unit <= 0x4dbf) || // Han extension A
    (unit >= 0x4e00 && unit <= 0x9fff) || // Han
    (unit >= 0xac00 && unit <= 0xd7af) || // Hangul
    (unit >= 0xf900 && unit <= 0xfaff) || // Han compatibility
    (unit >= 0xff00 && unit <= 0xffef) || // full-width forms
    (unit >= 0x3000 && unit <= 0x303f) // CJK punctuation
  );
}
