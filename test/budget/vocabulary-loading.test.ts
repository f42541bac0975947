import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const recorder = fileURLToPath(new URL('../cli/support/record-loaded-modules.mjs', import.meta.url));
const script = fileURLToPath(new URL('./support/load-for-model.ts', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx');

/** Every module URL a process loaded that imports the root entry and counts for `modelId`. */
async function loadedFor(modelId?: string): Promise<{ stdout: string; modules: string[] }> {
  const directory = mkdtempSync(join(tmpdir(), 'vocabulary-loading-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  const record = join(directory, 'modules.txt');
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', tsx, '--import', recorder, script, ...(modelId === undefined ? [] : [modelId])],
      { env: { ...process.env, RECORD_LOADED_MODULES: record }, timeout: 90_000 },
      (error, out) => (error ? reject(error) : resolve(out)),
    );
  });
  return { stdout, modules: readFileSync(record, 'utf8').trimEnd().split('\n') };
}

const vocabularyModules = (modules: readonly string[]) =>
  modules.filter(
    (url) => url.includes('/node_modules/@huggingface/') || url.includes('/node_modules/@lenml/'),
  );

describe('the root entry loads no vocabulary a turn does not use', () => {
  it('importing it, or counting for OpenAI or Claude, loads neither @huggingface/tokenizers nor the Gemma vocabulary', async () => {
    for (const modelId of [undefined, 'gpt-4o', 'claude-opus-4-7']) {
      const { modules } = await loadedFor(modelId);
      expect(modules.some((url) => url.includes('/src/index.ts'))).toBe(true);
      expect(vocabularyModules(modules)).toEqual([]);
    }
  }, 180_000);

  it('a Gemini turn loads them (so the record above would see them)', async () => {
    const { stdout, modules } = await loadedFor('gemini-2.5-flash');
    expect(stdout).toBe('hf:gemma3 4\n');
    expect(vocabularyModules(modules).some((url) => url.includes('@huggingface/tokenizers'))).toBe(true);
  }, 120_000);
});
