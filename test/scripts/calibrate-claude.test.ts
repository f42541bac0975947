import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { get_encoding } from 'tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureCalibration, renderCalibrationTable, tablePath } from '../../scripts/calibrate-claude.js';
import { calibrationCorpus } from '../../scripts/claude-calibration-corpus.js';
import type { ClaudeCalibration } from '../../src/budget/claude-calibration.js';
import { claudeCalibrationTable } from '../../src/budget/claude-calibration-table.js';
import { createClaudeTokenizer } from '../../src/budget/claude-tokenizer.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';

// The stub's "Claude": cl100k_base, a tokenizer unlike o200k_base whose ratio to it differs by
// script (CJK most), scaled per model, plus the tokens count_tokens adds around a message.
const cl100k = get_encoding('cl100k_base');
const scaleOf: Record<string, number> = { 'claude-opus-4-7': 1.4, 'claude-sonnet-4-5': 1.1 };
const messageOverhead = 7;
const truth = (model: string, text: string) =>
  Math.round(cl100k.encode_ordinary(text).length * (scaleOf[model] ?? 1));

const requests: { headers: IncomingMessage['headers']; body: { model: string; messages: unknown[] } }[] = [];
const server = createServer((request, response) => {
  let raw = '';
  request.on('data', (chunk) => {
    raw += chunk;
  });
  request.on('end', () => {
    const body = JSON.parse(raw) as { model: string; messages: { role: string; content: string }[] };
    requests.push({ headers: request.headers, body });
    if (request.url !== '/v1/messages/count_tokens' || request.headers['x-api-key'] !== 'test-key') {
      response.writeHead(401).end('{"error":"unauthorized"}');
      return;
    }
    const text = body.messages[0]?.content ?? '';
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ input_tokens: messageOverhead + truth(body.model, text) }));
  });
});
let baseUrl = '';
let measured: ClaudeCalibration;
const o200k = createTiktokenTokenizer();

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  measured = await measureCalibration({ apiKey: 'test-key', baseUrl, date: '2026-12-05' });
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  cl100k.free();
  o200k.dispose();
});

// Texts not in the corpus: each script alone and mixed.
const heldOut = [
  'Refunds are issued to the card that paid for the order. When that card has expired, the bank forwards the money to the replacement card, and the customer does not need to do anything.',
  'def shipping(weight: float, zone: int) -> float:\n    base = {1: 4.5, 2: 7.0, 3: 11.25}[zone]\n    return round(base + max(0, weight - 1) * 1.2, 2)\n',
  '{"order": 1042, "lines": [{"sku": "A-17", "qty": 2}, {"sku": "B-03", "qty": 1}], "paid": true}',
  '退款会退回到支付订单时使用的银行卡。如果该卡已过期，银行会将款项转到新卡上，客户无需进行任何操作。',
  'Shipping is free above 50 EUR.\nconst free = (total: number) => total >= 50;\n送料は五十ユーロ以上で無料です。',
];

describe('scripts/calibrate-claude.ts against a stub count_tokens on 127.0.0.1', () => {
  it('asks count_tokens as Anthropic documents it, once per sample and tokenizer (plus one for the overhead)', () => {
    const tokenizers = claudeCalibrationTable.tokenizers.length;
    expect(requests).toHaveLength(tokenizers * (calibrationCorpus.length + 1));
    expect(requests[0]?.headers).toMatchObject({
      'anthropic-version': '2023-06-01',
      'x-api-key': 'test-key',
    });
    expect(new Set(requests.map((request) => request.body.model))).toEqual(
      new Set(claudeCalibrationTable.tokenizers.map((tokenizer) => tokenizer.probeModel)),
    );
  });

  it('writes a measured table: its source and date, each sample’s counts less the message overhead', () => {
    expect(measured).toMatchObject({ measured: true, date: '2026-12-05' });
    expect(measured.source).toMatch(/messages\/count_tokens/);
    const [newest] = measured.tokenizers;
    const sample = calibrationCorpus[0];
    expect(newest?.samples[0]).toEqual({
      id: sample?.id,
      script: sample?.script,
      o200k: reference(sample?.text ?? ''),
      claude: truth('claude-opus-4-7', sample?.text ?? ''),
    });
    // cl100k spends far more on CJK than o200k does: the CJK factor says so.
    expect(newest?.factors.cjk).toBeGreaterThan((newest?.factors.prose ?? 0) + 0.2);
    for (const tokenizer of measured.tokenizers) {
      expect(tokenizer.margin).toBeGreaterThanOrEqual(0.05);
      // The script classifier reads the corpus's scripts: a blend that misread CJK as prose
      // would fall ~30% short on the CJK samples, and the margin would say so.
      expect(tokenizer.margin).toBeLessThanOrEqual(0.1);
    }
  });

  it('the measured table keeps its promise on every sample and on texts it never saw: calibrated ≥ true × (1 - margin)', async () => {
    for (const tokenizer of measured.tokenizers) {
      const claude = createClaudeTokenizer({ model: tokenizer.probeModel, calibration: measured, o200k });
      for (const text of [...calibrationCorpus.map((sample) => sample.text), ...heldOut]) {
        const counted = await claude.count(text);
        expect(counted).toBeGreaterThanOrEqual(truth(tokenizer.probeModel, text) * (1 - tokenizer.margin));
      }
    }
  });

  it('renders the table as the file the library ships: the shipped one round-trips byte for byte', () => {
    expect(renderCalibrationTable(claudeCalibrationTable)).toBe(readFileSync(tablePath, 'utf8'));
    const rendered = renderCalibrationTable(measured);
    expect(rendered).toContain('measured: true,');
    expect(rendered).toContain("date: '2026-12-05',");
  });

  it('a refused key fails the run, naming the status', async () => {
    await expect(measureCalibration({ apiKey: 'wrong', baseUrl })).rejects.toThrow(/answered 401/);
  });
});

function reference(text: string): number {
  const encoder = get_encoding('o200k_base');
  try {
    return encoder.encode_ordinary(text).length;
  } finally {
    encoder.free();
  }
}
