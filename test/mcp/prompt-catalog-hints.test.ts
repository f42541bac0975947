import type { Prompt } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PromptCatalog } from '../../src/mcp/prompt-catalog.js';

// Issue 34.2: a 2026-07-28 prompts/list carries ttlMs; the catalog behind getPrompt's argument
// check keeps a listing no longer than that (a 2025 one until the list or session changes).
const prompts: Prompt[] = [{ name: 'review', arguments: [{ name: 'file', required: true }] }];

function catalogListing(hints: { ttlMs?: number; cacheScope?: string }) {
  const calls: string[] = [];
  const catalog = new PromptCatalog(async (server) => {
    calls.push(server);
    return { prompts, ...hints };
  });
  const check = () => catalog.checkArguments('s', 'review', { file: 'a.ts' });
  return { calls, check, catalog };
}

describe("the prompt catalog honours a listing's ttlMs", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a 2025 listing (no hints) is kept; one marked ttlMs 0 is listed again by every check', async () => {
    const unhinted = catalogListing({});
    await unhinted.check();
    await unhinted.check();
    vi.setSystemTime(9_000_000);
    await unhinted.check();
    expect(unhinted.calls).toEqual(['s']);

    const zero = catalogListing({ ttlMs: 0, cacheScope: 'public' });
    await zero.check();
    await zero.check();
    expect(zero.calls).toEqual(['s', 's']);
  });

  it('a listing marked ttlMs 1000 is kept for 1000 ms, and still checks the arguments', async () => {
    const timed = catalogListing({ ttlMs: 1_000, cacheScope: 'public' });
    await timed.check();
    vi.setSystemTime(1_000_999);
    await timed.check();
    expect(timed.calls).toHaveLength(1);
    vi.setSystemTime(1_001_000);
    await expect(timed.catalog.checkArguments('s', 'review', {})).rejects.toMatchObject({
      code: 'PROMPT_ARGUMENT_MISSING',
    });
    expect(timed.calls).toHaveLength(2);
  });
});
