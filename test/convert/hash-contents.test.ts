import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { measureContents } from '../../src/cache/measure-contents.js';
import { convertContents } from '../../src/convert/convert-contents.js';
import { hashContents } from '../../src/convert/hash-contents.js';
import { scriptedMemoryConfig } from '../mcp/support/scripted-server.js';
import { startProviderHarness } from '../support/provider-harness.js';

const sha256 = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3]);
const blob = Buffer.from(png).toString('base64');

describe('one sha256 of the bytes as sent', () => {
  it('a blob is hashed as the bytes its base64 encodes, text as UTF-8 — by the cache and by conversion alike', () => {
    const image = { contents: [{ uri: 'x://logo.png', mimeType: 'image/png', blob }] };
    const text = { contents: [{ uri: 'x://notes', mimeType: 'text/plain', text: 'héllo 日本' }] };

    expect(hashContents(image.contents)).toBe(sha256(png));
    expect(hashContents(image.contents)).not.toBe(sha256(blob));
    expect(measureContents(image).sha256).toBe(sha256(png));
    expect(convertContents(image.contents).sha256).toBe(sha256(png));

    expect(measureContents(text).sha256).toBe(sha256('héllo 日本'));
    expect(convertContents(text.contents).sha256).toBe(sha256('héllo 日本'));
  });

  it('a read of several items hashes their bytes in order', () => {
    const contents = [
      { uri: 'x://a', text: 'first\n' },
      { uri: 'x://b', mimeType: 'image/png', blob },
    ];
    const expected = createHash('sha256').update('first\n').update(png).digest('hex');
    expect(measureContents({ contents }).sha256).toBe(expected);
    expect(convertContents(contents).sha256).toBe(expected);
  });

  it.each([
    ['with the content cache', {}],
    ['without it', { cache: false as const }],
  ])('the trace names a blob by the sha256 of its bytes, %s', async (_, provider) => {
    const images = scriptedMemoryConfig({
      resources: [{ uri: 'img://logo', name: 'logo', mimeType: 'image/png' }],
      contents: { 'img://logo': [{ uri: 'img://logo', mimeType: 'image/png', blob }] },
    });
    const harness = await startProviderHarness('memory', { extraServers: { images }, provider });
    await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'images', uri: 'img://logo' });

    const { trace, blocks } = await harness.provider.provide({
      pipelineId: 'support',
      model: { images: true },
    });

    expect(trace.entries[0]).toMatchObject({ uri: 'img://logo', status: 'injected', sha256: sha256(png) });
    const block = blocks.find((candidate) => candidate.kind === 'resource');
    expect(block?.kind === 'resource' && block.provenance.sha256).toBe(sha256(png));
  });
});

describe('hashContents: items that are neither plain text nor plain blob', () => {
  it('an item is hashed as text only when its text is a string: `text: null` beside a blob is the blob', () => {
    const item = { uri: 'x://a', text: null, blob } as never;
    expect(hashContents([item])).toBe(sha256(png));
  });

  it('an item with neither text nor blob adds no bytes', () => {
    expect(hashContents([{ uri: 'x://a' } as never])).toBe(sha256(''));
    expect(hashContents([{ uri: 'x://a', text: 'a' }, { uri: 'x://b' } as never])).toBe(sha256('a'));
  });
});
