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

  it('is bounded per conversation and server: past maxResources, the resource least recently injected is forgotten', () => {
    const changes = new ChangeTracker(10, 3);
    for (const uri of ['doc://pin', 'doc://1', 'doc://2']) changes.observe('c-1', 'docs', uri, 'sha-1');
    // The pin is injected every turn: it stays; a fourth resource pushes out doc://1.
    expect(changes.observe('c-1', 'docs', 'doc://pin', 'sha-1')).toBe('unchanged');
    expect(changes.observe('c-1', 'docs', 'doc://3', 'sha-1')).toBe('new');
    expect(changes.observe('c-1', 'wiki', 'doc://1', 'sha-1')).toBe('new');
    expect(changes.observe('c-1', 'docs', 'doc://pin', 'sha-1')).toBe('unchanged');
    expect(changes.observe('c-1', 'docs', 'doc://2', 'sha-1')).toBe('unchanged');
    expect(changes.observe('c-1', 'docs', 'doc://3', 'sha-1')).toBe('unchanged');
    expect(changes.observe('c-1', 'docs', 'doc://1', 'sha-1')).toBe('new');
    expect(changes.historyOf('c-1').servers.get('docs')?.size).toBe(3);
  });

  it('historyOf: one object per conversation while held, whose changes count each version recorded', () => {
    const changes = new ChangeTracker();
    const history = changes.historyOf('c-1');
    expect(history.changes).toBe(0);
    changes.observe('c-1', 'docs', 'doc://a', 'sha-1');
    changes.observe('c-1', 'docs', 'doc://a', 'sha-1');
    changes.observe('c-2', 'docs', 'doc://a', 'sha-1');
    expect(history.changes).toBe(1);
    changes.observe('c-1', 'docs', 'doc://a', 'sha-2');
    changes.observe('c-1', 'wiki', 'doc://a', 'sha-2');
    expect(history.changes).toBe(3);
    expect(changes.historyOf('c-1')).toBe(history);
    expect(changes.historyOf('c-2')).not.toBe(history);
    expect(changes.historyOf('c-2').changes).toBe(1);
    expect(history.servers.get('docs')?.get('doc://a')).toBe('sha-2');
  });

  it('historyOf: a forgotten conversation gets a new history; asking for one is activity that keeps it', () => {
    const changes = new ChangeTracker(2);
    const first = changes.historyOf('c-1');
    changes.observe('c-1', 'docs', 'doc://a', 'sha-1');
    changes.observe('c-2', 'docs', 'doc://a', 'sha-1');
    // c-1 asked for again: c-2 is now the least recently active, forgotten when c-3 comes.
    expect(changes.historyOf('c-1')).toBe(first);
    changes.observe('c-3', 'docs', 'doc://a', 'sha-1');
    expect(changes.historyOf('c-1')).toBe(first);
    expect(changes.observe('c-2', 'docs', 'doc://a', 'sha-1')).toBe('new');
    // c-1 and c-2 are held, c-1 the less recently active: c-3 makes it forgotten, and it starts over.
    changes.observe('c-3', 'docs', 'doc://a', 'sha-1');
    const again = changes.historyOf('c-1');
    expect(again).not.toBe(first);
    expect(again.changes).toBe(0);
  });
});
