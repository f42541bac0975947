import type { CalibrationSample } from '../src/budget/claude-calibration.js';

/**
 * The fixed corpus scripts/calibrate-claude.ts measures: a few samples of each script. Changing
 * it changes every factor: measure again after, and say so in the commit.
 */
export const calibrationCorpus: readonly {
  readonly id: string;
  readonly script: CalibrationSample['script'];
  readonly text: string;
}[] = [
  {
    id: 'prose-release-notes',
    script: 'prose',
    text: `This release makes the budget count in the target model's own tokens. Until now every turn was counted in the encoding of current OpenAI models, whatever model the host was about to call, and a host that sent the same context to a Claude or Gemini model could go over the window it had planned for. The provider now reads the model's id from the turn and picks a tokenizer for its family. Where the family's tokenizer is public, the count is exact; where it is not, the count is an estimate, and the trace says so, together with the margin held back to cover it.

Nothing changes for hosts that pass their own tokenizer: it still counts every turn. Hosts that pass a model id get the new behaviour without any other change, and the trace of each turn names the tokenizer that counted it.`,
  },
  {
    id: 'prose-support-article',
    script: 'prose',
    text: `When a customer reports that an order was charged twice, first check whether the second charge is a pending authorisation rather than a capture. Authorisations expire on their own within a few days, and refunding one only confuses the customer's bank statement. If both charges were captured, refund the later one from the payments dashboard, add a note to the order explaining what happened, and let the customer know that the refund can take up to ten working days to appear. Escalate to the payments team only when the same card was charged more than twice, or when the refund fails.`,
  },
  {
    id: 'code-typescript',
    script: 'code',
    text: `export async function retry<T>(operation: () => Promise<T>, attempts = 3, delayMs = 200): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      return await operation();
    } catch (error) {
      lastError = error;
      if (attempt + 1 < attempts) await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** attempt));
    }
  }
  throw lastError;
}

interface CartLine { readonly sku: string; readonly quantity: number; readonly unitPrice: number }
export const total = (lines: readonly CartLine[]) => lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0);
`,
  },
  {
    id: 'code-python',
    script: 'code',
    text: `import json
from dataclasses import dataclass, field


@dataclass
class Invoice:
    number: str
    lines: list[tuple[str, int, float]] = field(default_factory=list)

    def total(self) -> float:
        return sum(quantity * price for _, quantity, price in self.lines)

    def to_json(self) -> str:
        return json.dumps({"number": self.number, "total": round(self.total(), 2)})


def parse(path: str) -> list[Invoice]:
    with open(path, encoding="utf-8") as handle:
        return [Invoice(**row) for row in json.load(handle)]
`,
  },
  {
    id: 'json-listing',
    script: 'json',
    text: JSON.stringify(
      {
        resources: [
          {
            uri: 'gitnexus://repo/acme/cluster/payments',
            name: 'Payments',
            mimeType: 'text/yaml',
            size: 18234,
          },
          {
            uri: 'gitnexus://repo/acme/cluster/checkout',
            name: 'Checkout',
            mimeType: 'text/yaml',
            size: 9120,
          },
          {
            uri: 'gitnexus://repo/acme/process/refund',
            name: 'Refund flow',
            mimeType: 'application/json',
            size: 4410,
          },
        ],
        nextCursor: 'eyJvZmZzZXQiOjN9',
        _meta: { generatedAt: '2026-12-04T10:00:00Z', cohesion: 0.81, symbols: 42 },
      },
      null,
      2,
    ),
  },
  {
    id: 'cjk-chinese',
    script: 'cjk',
    text: '当客户反映同一笔订单被扣款两次时，首先要确认第二笔是否只是尚未完成的预授权，而不是真正的扣款。预授权会在几天内自动失效，如果对它进行退款，只会让客户的银行账单更加混乱。如果两笔都已经扣款成功，请在支付后台退还后一笔，并在订单中备注原因，同时告知客户退款可能需要十个工作日才能到账。',
  },
  {
    id: 'cjk-japanese',
    script: 'cjk',
    text: 'このリリースでは、予算を対象モデル自身のトークンで数えるようになりました。これまではどのモデルを呼び出す場合でも、現在のOpenAIモデルのエンコーディングで数えていたため、同じコンテキストを別のモデルに送ると、想定していたウィンドウを超えることがありました。トレースには、数えたトークナイザーの名前と、見積もりの場合はその余裕幅が記録されます。',
  },
];
