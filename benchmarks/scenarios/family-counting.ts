import { createClaudeTokenizer } from '../../src/budget/claude-tokenizer.js';
import { createGeminiTokenizer } from '../../src/budget/gemini-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import {
  AccessPolicy,
  createTiktokenTokenizer,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
} from '../../src/index.js';
import { startBulkServer } from '../support/bulk-server.js';
import { median, mixedText, round, withEncoderLoaded } from '../support/context-bench.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

const families = [
  { key: 'openai', model: 'gpt-4o' },
  { key: 'claude', model: 'claude-opus-4-7' },
  { key: 'gemini', model: 'gemini-2.5-flash' },
] as const;
const resourceBytes = 64 * 1024;
const maxTokens = 8000;

/**
 * Counting speed per model family: cold `count()` of mixed text (code, YAML, prose, CJK, emoji) in
 * MiB/s, each run a new tokenizer (empty caches; Gemma's vocabulary stays loaded, a start-up
 * cost), and a cold turn of `resources` × 64 KB pins with the turn's model choosing the tokenizer
 * (a new provider each run). Gemini counts whole renderings with @huggingface/tokenizers (pure
 * JavaScript, no pre-tokenizer to split on): its figures are the price of exactness there.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const chars = options.quick ? 256 * 1024 : 1024 * 1024;
  const runs = options.quick ? 1 : 3;
  const resources = options.quick ? 20 : 100;
  // Held for the whole run: the vocabulary is loaded once per process, as a host's would be.
  const loadStarted = performance.now();
  const gemmaHeld = await createGeminiTokenizer();
  const figures: Figures = {
    gemmaLoadMs: round(performance.now() - loadStarted, 0),
    resources,
    resourceBytes,
  };
  const server = startBulkServer(resources, resourceBytes);
  const servers = new McpServerRegistry({ mcpServers: { bulk: server.serverConfig } });
  const attachments = new MemoryAttachmentStore();
  for (const uri of server.uris)
    await attachments.pin({ scope: { pipelineId: 'bench' }, server: 'bulk', uri });
  const policy = new AccessPolicy({ bindings: { bench: { servers: ['bulk'] } } });
  await servers.listResources('bulk');
  try {
    // o200k_base's vocabulary too is loaded once per process (withEncoderLoaded), before any figure.
    await withEncoderLoaded(async () => {
      // Families take turns run by run, so that none is measured at a warmer moment than another.
      const counted = new Map<string, number[]>(families.map(({ key }) => [key, []]));
      // Run -1 warms the JIT and is not measured.
      for (let index = -1; index < runs; index++) {
        const text = mixedText(chars, index + 2);
        for (const family of families) {
          const tokenizer = await newTokenizer(family.key);
          try {
            const started = performance.now();
            await tokenizer.count(text);
            if (index >= 0) counted.get(family.key)?.push(performance.now() - started);
          } finally {
            tokenizer.dispose();
          }
        }
      }
      const megabytes = Buffer.byteLength(mixedText(chars, 2)) / (1024 * 1024);
      for (const { key } of families)
        figures[`${key}_MiB_per_s`] = round(megabytes / (median(counted.get(key) ?? []) / 1000));
      for (const family of families) await coldTurns(family);
    });
    return figures;
  } finally {
    gemmaHeld.dispose();
    await servers.close();
  }

  async function coldTurns(family: (typeof families)[number]): Promise<void> {
    const turns: number[] = [];
    let used = 0;
    for (let index = 0; index < runs; index++) {
      const provider = new ResourceContextProvider({ servers, attachments, policy, budget: { maxTokens } });
      try {
        const started = performance.now();
        const { trace } = await provider.provide({ pipelineId: 'bench', model: { id: family.model } });
        turns.push(performance.now() - started);
        used = trace.budget.usedTokens;
      } finally {
        provider.dispose();
      }
    }
    figures[`${family.key}_coldTurnMs`] = round(median(turns), 0);
    figures[`${family.key}_usedTokens`] = used;
  }
}

export const readme: ReadmeRow = {
  what: 'counting per model family: cold `count()` of mixed text, and a cold turn of 100 × 64 KB pins budgeted in the model’s tokens',
  result: (figures) =>
    families
      .map(
        ({ key }) => `${key} ${figures[`${key}_MiB_per_s`]} MiB/s, turn ${figures[`${key}_coldTurnMs`]} ms`,
      )
      .join('; '),
  target: 'measured (no target)',
};

async function newTokenizer(family: (typeof families)[number]['key']): Promise<Tokenizer> {
  if (family === 'openai') return createTiktokenTokenizer();
  if (family === 'claude') return createClaudeTokenizer({ model: 'claude-opus-4-7' });
  return createGeminiTokenizer();
}
