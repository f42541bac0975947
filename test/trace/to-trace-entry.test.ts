import { describe, expect, it } from 'vitest';
import { ContextError } from '../../src/errors.js';
import type { AttachmentFate, ComposedFacts, TracedAttachment } from '../../src/trace/attachment-fate.js';
import { toTraceEntry } from '../../src/trace/to-trace-entry.js';

const attachment: TracedAttachment = {
  scope: 'pipeline',
  attachmentId: 'pin-1',
  server: 'docs',
  uri: 'doc://a',
  superseded: [],
};
const converted = {
  mimeType: 'text/plain',
  sha256: 'ab'.repeat(32),
  bytes: 42,
  textual: true,
  omittedContents: [],
  notes: [],
};
const readyFate = (): AttachmentFate => ({
  kind: 'ready',
  converted,
  composable: {},
  cache: 'hit',
  durationMs: 0,
});
const whole: ComposedFacts = {
  decision: { fate: 'whole' },
  tokens: 30,
  originalTokens: 25,
  originalTokensEstimated: false,
  omittedContents: [],
  injectable: true,
};

describe('toTraceEntry', () => {
  it('an attachment traced again with the same fate, composition, change and provenance gets an equal entry', () => {
    const fate = readyFate();
    const first = toTraceEntry(attachment, fate, whole, 'unchanged');
    // A new attachment object of the next turn, naming the same pin.
    const again = toTraceEntry({ ...attachment, superseded: [] }, fate, whole, 'unchanged');
    expect(again).toEqual(first);
    expect(Object.isFrozen(again)).toBe(true);
    expect(first).toEqual({
      scope: 'pipeline',
      attachmentId: 'pin-1',
      server: 'docs',
      uri: 'doc://a',
      mimeType: 'text/plain',
      sha256: 'ab'.repeat(32),
      status: 'injected',
      tokens: 30,
      originalTokens: 25,
      bytes: 42,
      cache: 'hit',
      durationMs: 0,
      superseded: [],
      omittedContents: [],
      change: 'unchanged',
    });
  });

  it('each entry says what its own inputs say, whatever the entries made before it from the same fate', () => {
    const fate = readyFate();
    const base = toTraceEntry(attachment, fate, whole, 'new');
    expect(base.change).toBe('new');
    const unchanged = toTraceEntry(attachment, fate, whole, 'unchanged');
    expect(unchanged.change).toBe('unchanged');

    const cut: ComposedFacts = { ...whole, decision: { fate: 'truncated', contentTokens: 10 }, tokens: 15 };
    const truncated = toTraceEntry(attachment, fate, cut, 'unchanged');
    expect(truncated).toMatchObject({ status: 'truncated', tokens: 15 });

    const variants: [string, TracedAttachment][] = [
      ['scope', { ...attachment, scope: 'conversation' }],
      ['server', { ...attachment, server: 'other' }],
      ['uri', { ...attachment, uri: 'doc://b' }],
      ['attachmentId', { ...attachment, attachmentId: 'pin-2' }],
      ['template', { ...attachment, template: 'doc://{name}' }],
      ['lastModified', { ...attachment, lastModified: '2026-12-01T00:00:00Z' }],
      ['skillName', { ...attachment, skillName: 'review' }],
      ['superseded', { ...attachment, superseded: [{ scope: 'conversation', attachmentId: 'pin-0' }] }],
    ];
    for (const [field, variant] of variants) {
      const entry = toTraceEntry(variant, fate, cut, 'unchanged');
      expect((entry as unknown as Record<string, unknown>)[field], field).toEqual(
        (variant as Record<string, unknown>)[field],
      );
      expect(entry, field).toMatchObject({ status: 'truncated', tokens: 15 });
      // The original provenance, traced after the variant, is the original's again.
      expect(toTraceEntry(attachment, fate, cut, 'unchanged'), field).toEqual(truncated);
    }
  });

  it('each fate has its own entry, and entries are frozen (a trace shared by turns cannot be changed)', () => {
    const one = toTraceEntry(attachment, readyFate(), whole, 'unchanged');
    const other = toTraceEntry(attachment, readyFate(), whole, 'unchanged');
    expect(other).not.toBe(one);
    expect(other).toEqual(one);
    const failed = toTraceEntry(
      attachment,
      {
        kind: 'failed',
        status: 'error',
        error: new ContextError('READ_TIMEOUT', 'gone'),
        cache: 'miss',
        durationMs: 3,
      },
      undefined,
      undefined,
    );
    expect(failed).toMatchObject({ status: 'error', error: { code: 'READ_TIMEOUT', message: 'gone' } });
    for (const entry of [one, failed]) {
      expect(Object.isFrozen(entry)).toBe(true);
      expect(() => {
        (entry as { tokens: number }).tokens = 1;
      }).toThrow(TypeError);
    }
  });
});
