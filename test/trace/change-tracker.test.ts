import { describe, expect, it } from 'vitest';
import { ChangeTracker } from '../../src/trace/change-tracker.js';

describe('ChangeTracker', () => {
  it('says new, unchanged and changed by sha256, per conversation', () => {
    const changes = new ChangeTracker();
    expect(changes.observe('c-1', 'docs', 'doc://a', 'sha-1')).toBe('new');
    expect(changes.observe('c-1', 'docs', 'doc://a', 'sha-1')).toBe('unchanged');
    expect(changes.observe('c-1', 'docs', 'doc://a', 'sha-2')).toBe('changed');
    expect(changes.observe('c-2', 'docs', 'doc://a', 'sha-2')).toBe('new');
  });

  it('keeps a version per (server, uri): the same URI on another server is another resource', () => {
    const changes = new ChangeTracker();
    expect(changes.observe('c-1', 'docs', 'doc://a', 'sha-1')).toBe('new');
    expect(changes.observe('c-1', 'wiki', 'doc://a', 'sha-2')).toBe('new');
    expect(changes.observe('c-1', 'docs', 'doc://b', 'sha-1')).toBe('new');
    expect(changes.observe('c-1', 'docs', 'doc://a', 'sha-1')).toBe('unchanged');
    expect(changes.observe('c-1', 'wiki', 'doc://a', 'sha-2')).toBe('unchanged');
  });

  it('a conversation observed again after another one evicted it starts over', () => {
    const changes = new ChangeTracker(1);
    changes.observe('c-1', 'docs', 'doc://a', 'sha-1');
    changes.observe('c-1', 'docs', 'doc://b', 'sha-1');
    changes.observe('c-2', 'docs', 'doc://a', 'sha-1');
    expect(changes.observe('c-1', 'docs', 'doc://a', 'sha-1')).toBe('new');
    expect(changes.observe('c-1', 'docs', 'doc://b', 'sha-1')).toBe('new');
  });

  it('is bounded: past maxConversations, the least recently active conversation is forgotten', () => {
    const changes = new ChangeTracker(2);
    changes.observe('c-1', 'docs', 'doc://a', 'sha-1');
    changes.observe('c-2', 'docs', 'doc://a', 'sha-1');
    changes.observe('c-1', 'docs', 'doc://a', 'sha-1');
    changes.observe('c-3', 'docs', 'doc://a', 'sha-1');
    // c-2 was the least recently active of three: forgotten, its next turn reports `new`.
    expect(changes.observe('c-2', 'docs', 'doc://a', 'sha-1')).toBe('new');
    expect(changes.observe('c-3', 'docs', 'doc://a', 'sha-1')).toBe('unchanged');
  });
});
