import { describe, expect, it } from 'vitest';
import type { ResolvedAttachment } from '../../src/attachments/resolve-turn-attachments.js';
import { describedByListing } from '../../src/fetch/described-by-listing.js';

const attachment: ResolvedAttachment = Object.freeze({
  scope: 'pipeline',
  server: 'docs',
  uri: 'docs://guide',
  priority: 0,
  superseded: [],
});

describe('describedByListing', () => {
  it('an attachment whose listing adds nothing is itself', () => {
    expect(describedByListing(attachment, undefined, undefined)).toBe(attachment);
  });

  it('the same annotations again: an equal description; changed ones: a new one with the new values', () => {
    const first = describedByListing(attachment, '2026-12-01T00:00:00Z', 0.8);
    expect(first).toEqual({ ...attachment, lastModified: '2026-12-01T00:00:00Z', annotationPriority: 0.8 });
    expect(describedByListing(attachment, '2026-12-01T00:00:00Z', 0.8)).toEqual(first);
    const modified = describedByListing(attachment, '2026-12-02T00:00:00Z', 0.8);
    expect(modified).not.toBe(first);
    expect(modified.lastModified).toBe('2026-12-02T00:00:00Z');
    const reprioritized = describedByListing(attachment, '2026-12-02T00:00:00Z', 0.2);
    expect(reprioritized.annotationPriority).toBe(0.2);
    const priorityOnly = describedByListing(attachment, undefined, 0.2);
    expect(priorityOnly).toEqual({ ...attachment, annotationPriority: 0.2 });
    expect(priorityOnly).not.toHaveProperty('lastModified');
  });

  it('describes an attachment that may change (a row) as one that cannot: no memo tells them apart (docs/reuse.md)', () => {
    const row: ResolvedAttachment = { ...attachment };
    const first = describedByListing(row, '2026-12-03T00:00:00Z', undefined);
    expect(first).toEqual({ ...attachment, lastModified: '2026-12-03T00:00:00Z' });
    expect(describedByListing(row, '2026-12-03T00:00:00Z', undefined)).toEqual(first);
  });

  it('a listing that gives only lastModified: a description with lastModified and no priority key', () => {
    const other: ResolvedAttachment = Object.freeze({ ...attachment, uri: 'docs://dated' });
    const dated = describedByListing(other, '2026-12-03T00:00:00Z', undefined);
    expect(dated).not.toBe(other);
    expect(dated).toEqual({ ...other, lastModified: '2026-12-03T00:00:00Z' });
    expect(dated).not.toHaveProperty('annotationPriority');
    expect(describedByListing(other, '2026-12-03T00:00:00Z', undefined)).toEqual(dated);
  });
});
