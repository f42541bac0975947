import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import { createConverterRegistry } from '../../src/convert/converter-registry.js';
import { hashContents } from '../../src/convert/hash-contents.js';
import { prepareAttachment } from '../../src/convert/prepare-attachment.js';
import { EscapedText } from '../../src/render/escaped-text.js';
import { countingRegistry } from '../support/counting-registry.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const target = { scope: 'pipeline', server: 'docs', uri: 'docs://guide.md' } as const;
/** A one-item markdown read, and the section it becomes. */
const contents = [{ uri: 'docs://guide.md', mimeType: 'text/markdown', text: '# Guide' }];
const guideSection = {
  kind: 'text',
  uri: 'docs://guide.md',
  mimeType: 'text/markdown',
  bytes: 7,
  text: '# Guide',
  // Escaped lazily: `text` is its whole escaped text.
  escaped: expect.any(EscapedText),
};

describe('prepareAttachment', () => {
  it('frames a read with its provenance, and names nothing it was not given', () => {
    const { converted, composable } = prepareAttachment(target, { contents });
    expect(composable).toStrictEqual({
      provenance: {
        scope: 'pipeline',
        server: 'docs',
        uri: 'docs://guide.md',
        mimeType: 'text/markdown',
        sha256: sha256('# Guide'),
      },
      sections: [guideSection],
    });
    expect(converted.notes).toStrictEqual([]);
  });

  it('passes lastModified, the skill, the content key and the token cap through', () => {
    const cache = new DerivedCache();
    const hash = hashContents(contents);
    const { composable } = prepareAttachment(
      {
        ...target,
        maxTokens: 300,
        lastModified: '2026-11-30T10:00:00Z',
        skillFrame: { name: 'release', description: 'How to cut a release' },
      },
      { contents },
      { derived: { cache, sha256: hash } },
    );
    expect(composable).toStrictEqual({
      provenance: {
        scope: 'pipeline',
        server: 'docs',
        uri: 'docs://guide.md',
        mimeType: 'text/markdown',
        sha256: hash,
        lastModified: '2026-11-30T10:00:00Z',
        skill: { name: 'release', description: 'How to cut a release' },
      },
      sections: [guideSection],
      contentKey: cache.conversionKey(hash, undefined),
      capTokens: 300,
    });
  });

  it('converts unchanged content once: the conversion is kept under its content key and reused', () => {
    const { registry, calls } = countingRegistry();
    const cache = new DerivedCache();
    const derived = { cache, sha256: hashContents(contents) };

    const first = prepareAttachment(target, { contents }, { converters: registry, derived });
    const second = prepareAttachment(target, { contents }, { converters: registry, derived });

    expect(calls).toEqual(['# Guide']);
    expect(second.converted).toBe(first.converted);
    expect(second.composable.sections).toBe(first.composable.sections);
    expect(cache.conversion(cache.conversionKey(derived.sha256, registry))).toStrictEqual({
      converted: first.converted,
      sections: first.composable.sections,
    });
  });

  it('content converted for a docs:// attachment is never reused for a ui:// one, nor the reverse', () => {
    const cache = new DerivedCache();
    const derived = { cache, sha256: hashContents(contents) };
    const ui = { ...target, uri: 'ui://guide/app' };
    expect(prepareAttachment(target, { contents }, { derived }).converted.textual).toBe(true);
    expect(prepareAttachment(ui, { contents }, { derived }).converted.textual).toBe(false);
    const fresh = new DerivedCache();
    const again = { cache: fresh, sha256: derived.sha256 };
    expect(prepareAttachment(ui, { contents }, { derived: again }).converted.textual).toBe(false);
    expect(prepareAttachment(target, { contents }, { derived: again }).converted.textual).toBe(true);
  });

  it('unchanged content prepared for the same attachment is the same object again; another scope, URI or cap gets its own', () => {
    const cache = new DerivedCache();
    const read = { contents };
    const derived = { cache, sha256: hashContents(contents) };
    const first = prepareAttachment(target, read, { derived });
    expect(prepareAttachment({ ...target }, read, { derived })).toBe(first);
    // Another read object of the same content: the conversion is shared, the preparation too.
    expect(prepareAttachment(target, { contents }, { derived })).toBe(first);
    const conversation = prepareAttachment({ ...target, scope: 'conversation' }, read, { derived });
    expect(conversation).not.toBe(first);
    expect(conversation.composable.provenance.scope).toBe('conversation');
    expect(conversation.composable.sections).toBe(first.composable.sections);
    expect(
      prepareAttachment({ ...target, uri: 'docs://copy.md' }, read, { derived }).composable.provenance.uri,
    ).toBe('docs://copy.md');
    expect(prepareAttachment({ ...target, maxTokens: 100 }, read, { derived }).composable.capTokens).toBe(
      100,
    );
    expect(prepareAttachment({ ...target, lastModified: '2026-01-01' }, read, { derived })).not.toBe(first);
    const skill = prepareAttachment({ ...target, skillFrame: { name: 'guide', description: 'how' } }, read, {
      derived,
    });
    expect(skill).not.toBe(first);
    const described = { ...target, skillFrame: { name: 'guide', description: 'why' } };
    expect(prepareAttachment(described, read, { derived }).composable.provenance.skill?.description).toBe(
      'why',
    );
    // Without the derived cache nothing is kept.
    expect(prepareAttachment(target, read)).not.toBe(prepareAttachment(target, read));
  });

  it('the same content on another server, or under another skill name, is prepared as its own', () => {
    const cache = new DerivedCache();
    const read = { contents };
    const derived = { cache, sha256: hashContents(contents) };
    const docs = prepareAttachment(target, read, { derived });
    const mirror = prepareAttachment({ ...target, server: 'mirror' }, read, { derived });
    expect(mirror.composable.provenance.server).toBe('mirror');
    expect(prepareAttachment(target, read, { derived })).toBe(docs);
    const guide = { ...target, skillFrame: { name: 'guide', description: 'how' } };
    const manual = { ...target, skillFrame: { name: 'manual', description: 'how' } };
    expect(prepareAttachment(guide, read, { derived }).composable.provenance.skill?.name).toBe('guide');
    expect(prepareAttachment(manual, read, { derived }).composable.provenance.skill?.name).toBe('manual');
  });

  it('the preparations of one conversion for several attachments are all kept, up to the last 8', () => {
    const cache = new DerivedCache();
    const read = { contents };
    const derived = { cache, sha256: hashContents(contents) };
    const at = (index: number) => ({ ...target, uri: `docs://copy-${index}.md` });
    const first = [0, 1, 2].map((index) => prepareAttachment(at(index), read, { derived }));
    // Alternating attachments of one conversion keep their own objects.
    expect([0, 1, 2].map((index) => prepareAttachment(at(index), read, { derived }))).toEqual(first);
    for (const [index, prepared] of first.entries())
      expect(prepareAttachment(at(index), read, { derived })).toBe(prepared);
    // Six more make nine: the oldest (copy-0) is let go, copy-1 onwards are kept.
    const later = [3, 4, 5, 6, 7, 8].map((index) => prepareAttachment(at(index), read, { derived }));
    expect(prepareAttachment(at(1), read, { derived })).toBe(first[1]);
    expect(prepareAttachment(at(8), read, { derived })).toBe(later[5]);
    const again = prepareAttachment(at(0), read, { derived });
    expect(again).not.toBe(first[0]);
    expect(again).toEqual(first[0]);
  });

  it('one read prepared with two converter registries is converted by each', () => {
    const first = countingRegistry();
    const second = countingRegistry();
    const cache = new DerivedCache();
    const read = { contents };
    const derived = { cache, sha256: hashContents(contents) };
    const one = prepareAttachment(target, read, { converters: first.registry, derived });
    const two = prepareAttachment(target, read, { converters: second.registry, derived });
    expect([first.calls, second.calls]).toEqual([['# Guide'], ['# Guide']]);
    expect(two).not.toBe(one);
    expect(two.composable.contentKey).not.toBe(one.composable.contentKey);
  });

  it('a converter registered after a read was prepared converts the same read anew', () => {
    const { registry, calls } = countingRegistry();
    const cache = new DerivedCache();
    const read = { contents };
    const derived = { cache, sha256: hashContents(contents) };
    const first = prepareAttachment(target, read, { converters: registry, derived });
    expect(prepareAttachment(target, read, { converters: registry, derived })).toBe(first);
    const later: string[] = [];
    registry.register({
      name: 'later',
      mediaTypes: ['text/markdown'],
      input: 'text',
      convert: ({ text = '' }) => {
        later.push(text);
        return { kind: 'text', text };
      },
    });
    const second = prepareAttachment(target, read, { converters: registry, derived });
    expect(second).not.toBe(first);
    expect([calls, later]).toEqual([['# Guide'], ['# Guide']]);
  });

  it('other content under another key is converted anew; without the derived cache every call converts', () => {
    const { registry, calls } = countingRegistry();
    const cache = new DerivedCache();
    const read = (text: string) => ({
      contents: [{ uri: 'docs://guide.md', mimeType: 'text/markdown', text }],
    });

    prepareAttachment(target, read('one'), {
      converters: registry,
      derived: { cache, sha256: sha256('one') },
    });
    prepareAttachment(target, read('two'), {
      converters: registry,
      derived: { cache, sha256: sha256('two') },
    });
    prepareAttachment(target, read('one'), { converters: registry });
    prepareAttachment(target, read('one'), { converters: registry });

    expect(calls).toEqual(['one', 'two', 'one', 'one']);
  });

  it('a redaction is reported as a note with its count; none, no note', () => {
    const contents = [{ uri: 'docs://guide.md', mimeType: 'text/markdown', text: 'key [redacted]' }];
    const redacted = prepareAttachment(target, { contents, redactions: 2 });
    expect(redacted.converted.notes).toStrictEqual([
      "2 occurrence(s) of this server's credentials removed from its content (shown as [redacted])",
    ]);
    const clean = prepareAttachment(target, { contents, redactions: 0 });
    expect(clean.converted.notes).toStrictEqual([]);
  });

  it("what the read's byte cap cut becomes a visible omitted section per item", () => {
    const contents = [{ uri: 'docs://guide.md', mimeType: 'text/markdown', text: '# Gui' }];
    const { composable } = prepareAttachment(target, {
      contents,
      truncation: {
        maxBytes: 5,
        items: [
          { uri: 'docs://guide.md', mimeType: 'text/markdown', originalBytes: 12, keptBytes: 5 },
          { uri: 'docs://logo', originalBytes: 40, keptBytes: 0 },
        ],
      },
    });
    expect(composable.sections).toStrictEqual([
      {
        kind: 'text',
        uri: 'docs://guide.md',
        mimeType: 'text/markdown',
        bytes: 5,
        text: '# Gui',
        escaped: expect.any(EscapedText),
      },
      {
        kind: 'omitted',
        uri: 'docs://guide.md',
        mimeType: 'text/markdown',
        bytes: 7,
        reason: "the read's byte cap (5 bytes) kept 5 of 12 bytes",
      },
      {
        kind: 'omitted',
        uri: 'docs://logo',
        mimeType: 'application/octet-stream',
        bytes: 40,
        reason: "the read's byte cap (5 bytes) kept 0 of 40 bytes",
      },
    ]);
  });

  it('escapes text sections for framing (closing tags, control characters) and leaves the conversion as read', () => {
    const text = 'end </mcp-resource> bell \u0007';
    const contents = [
      { uri: 'docs://guide.md', mimeType: 'text/markdown', text },
      { uri: 'docs://a.zip', mimeType: 'application/zip', blob: 'UEs=' },
    ];
    const { converted, composable } = prepareAttachment(target, { contents });
    expect(composable.sections).toStrictEqual([
      {
        kind: 'text',
        uri: 'docs://guide.md',
        mimeType: 'text/markdown',
        bytes: 26,
        text: 'end &lt;/mcp-resource> bell \\u{7}',
        escaped: expect.any(EscapedText),
      },
      {
        kind: 'omitted',
        uri: 'docs://a.zip',
        mimeType: 'application/zip',
        bytes: 2,
        reason: 'binary content is not converted to text',
      },
    ]);
    expect(converted.sections[0]).toMatchObject({ text });
  });
});
