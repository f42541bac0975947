import { describe, expect, it } from 'vitest';
import { resolveTurnAttachments } from '../../src/attachments/resolve-turn-attachments.js';
import type { Attachment } from '../../src/types.js';

const pin = (id: string, uri: string, scope: Attachment['scope'], priority?: number): Attachment => ({
  id,
  scope,
  server: 'gitnexus',
  uri,
  addedAt: '2026-11-30T00:00:00.000Z',
  ...(priority !== undefined && { priority }),
});

/** A pin as the library's stores hand it out: with a version (and frozen, as they are). */
const stored = (id: string, uri: string, scope: Attachment['scope'], version = '1', priority?: number) =>
  Object.freeze({ ...pin(id, uri, scope, priority), version });

describe('resolveTurnAttachments', () => {
  it('orders by scope, then priority, then the order added (equal ones keep it), unresolved last', () => {
    const pipeline = { pipelineId: 'support' };
    const conversation = { conversationId: 'c' };
    const resolved = resolveTurnAttachments({
      pipeline: [
        pin('p1', 'gitnexus://a', pipeline),
        pin('p2', 'gitnexus://b', pipeline, 5),
        pin('p3', 'gitnexus://c', pipeline),
        pin('p4', 'not a uri', pipeline),
        pin('p5', 'gitnexus://d', pipeline),
      ],
      conversation: [pin('c1', 'gitnexus://e', conversation), pin('c2', 'gitnexus://f', conversation)],
      message: [],
    });
    expect(resolved.map((attachment) => attachment.attachmentId)).toEqual([
      'c1',
      'c2',
      'p2',
      'p1',
      'p3',
      'p5',
      'p4',
    ]);
    expect(resolved.at(-1)?.error?.code).toBe('INVALID_URI');
  });

  it('the narrowest scope wins a duplicate and the others are kept as superseded', () => {
    const resolved = resolveTurnAttachments({
      pipeline: [pin('p1', 'gitnexus://repos', { pipelineId: 'support' })],
      conversation: [pin('c1', 'gitnexus://repos', { conversationId: 'c' })],
      message: [{ server: 'gitnexus', uri: 'gitnexus://repos', maxTokens: 300 }],
    });
    expect(resolved).toHaveLength(1);
    expect(resolved[0]).toMatchObject({
      scope: 'message',
      maxTokens: 300,
      superseded: [
        { scope: 'conversation', attachmentId: 'c1' },
        { scope: 'pipeline', attachmentId: 'p1' },
      ],
    });
  });

  it('a template and a uri naming the same resource are one attachment', () => {
    const resolved = resolveTurnAttachments({
      pipeline: [pin('p1', 'gitnexus://repo/acme/context', { pipelineId: 'support' })],
      conversation: [],
      message: [
        { server: 'gitnexus', template: 'gitnexus://repo/{name}/context', arguments: { name: 'acme' } },
      ],
    });
    expect(resolved).toHaveLength(1);
    expect(resolved[0]).toMatchObject({ scope: 'message', template: 'gitnexus://repo/{name}/context' });
  });

  it('ranks message, then conversation, then pipeline; within a scope by priority, then order added', () => {
    const resolved = resolveTurnAttachments({
      pipeline: [pin('p1', 'x://p1', { pipelineId: 'p' }), pin('p2', 'x://p2', { pipelineId: 'p' }, 5)],
      conversation: [pin('c1', 'x://c1', { conversationId: 'c' })],
      message: [{ server: 'gitnexus', uri: 'x://m1' }],
    });
    expect(resolved.map((attachment) => attachment.uri)).toEqual(['x://m1', 'x://c1', 'x://p2', 'x://p1']);
  });

  it('a stored pin that no longer resolves is reported with its error, not dropped', () => {
    const broken = { ...pin('p1', 'x://a', { pipelineId: 'p' }), uri: 'not a uri' };
    const resolved = resolveTurnAttachments({ pipeline: [broken], conversation: [], message: [] });
    expect(resolved).toHaveLength(1);
    expect(resolved[0]?.error).toMatchObject({ code: 'INVALID_URI' });
  });
});

describe('resolveTurnAttachments across turns', () => {
  const scope = { pipelineId: 'support' };

  it('a pin with a version resolves to one object every turn at that version; a pin without one, anew each turn', () => {
    const versioned = stored('p1', 'gitnexus://a', scope, '7', 2);
    const unversioned = pin('p2', 'gitnexus://b', scope);
    const turn = () =>
      resolveTurnAttachments({ pipeline: [versioned, unversioned], conversation: [], message: [] });
    const [first, second] = [turn(), turn()];
    expect(second[0]).toBe(first[0]);
    expect(Object.isFrozen(first[0])).toBe(true);
    expect(first[0]).toEqual({
      scope: 'pipeline',
      attachmentId: 'p1',
      server: 'gitnexus',
      uri: 'gitnexus://a',
      priority: 2,
      superseded: [],
    });
    expect(second[1]).not.toBe(first[1]);
    expect(second[1]).toEqual(first[1]);
    // A frozen pin without a version is not taken for unchanged either: the version is the contract.
    const frozenOnly = Object.freeze(pin('p3', 'gitnexus://c', scope));
    const once = resolveTurnAttachments({ pipeline: [frozenOnly], conversation: [], message: [] });
    expect(resolveTurnAttachments({ pipeline: [frozenOnly], conversation: [], message: [] })[0]).not.toBe(
      once[0],
    );
    // The same pin object listed under another scope is resolved for that scope.
    const asConversation = resolveTurnAttachments({ pipeline: [], conversation: [versioned], message: [] });
    expect(asConversation[0]).toMatchObject({ scope: 'conversation', attachmentId: 'p1' });
  });

  it('a pin written again (a new version, even on the same object) is resolved anew', () => {
    const mutable: Attachment & { version: string; priority: number } = {
      ...pin('p1', 'gitnexus://a', scope),
      version: '1',
      priority: 1,
    };
    const other = stored('p2', 'gitnexus://b', scope, '1', 5);
    const turn = () => resolveTurnAttachments({ pipeline: [mutable, other], conversation: [], message: [] });
    const first = turn();
    expect(turn()).toBe(first);
    expect(first.map((attachment) => attachment.uri)).toEqual(['gitnexus://b', 'gitnexus://a']);
    // A store that writes in place raises the version with the change.
    mutable.priority = 9;
    mutable.version = '2';
    const rewritten = turn();
    expect(rewritten).not.toBe(first);
    expect(rewritten.map((attachment) => [attachment.uri, attachment.priority])).toEqual([
      ['gitnexus://a', 9],
      ['gitnexus://b', 5],
    ]);
  });

  it('merging a duplicate never changes a kept resolution: the winner of that turn is a copy', () => {
    const wide = stored('p1', 'gitnexus://repos', scope);
    const narrow = stored('c1', 'gitnexus://repos', { conversationId: 'c' });
    const alone = resolveTurnAttachments({ pipeline: [], conversation: [narrow], message: [] });
    const merged = resolveTurnAttachments({ pipeline: [wide], conversation: [narrow], message: [] });
    expect(merged).toEqual([{ ...alone[0], superseded: [{ scope: 'pipeline', attachmentId: 'p1' }] }]);
    expect(merged[0]).not.toBe(alone[0]);
    const again = resolveTurnAttachments({ pipeline: [], conversation: [narrow], message: [] });
    expect(again[0]).toBe(alone[0]);
    expect(again[0]?.superseded).toEqual([]);
  });

  it('the same pins at the same versions as the last turn, in new lists, resolve to the same list, merges included', () => {
    const wide = stored('p1', 'gitnexus://repos', scope);
    const other = stored('p2', 'gitnexus://other', scope);
    const narrow = stored('c1', 'gitnexus://repos', { conversationId: 'c' });
    const turn = () =>
      resolveTurnAttachments({ pipeline: [wide, other], conversation: [narrow], message: [] });
    const first = turn();
    expect(turn()).toBe(first);
    expect(first.map((attachment) => [attachment.scope, attachment.uri])).toEqual([
      ['conversation', 'gitnexus://repos'],
      ['pipeline', 'gitnexus://other'],
    ]);
    // A pin added after the others (same first pin) or taken away is a new list.
    const added = stored('p3', 'gitnexus://added', scope);
    const grown = resolveTurnAttachments({
      pipeline: [wide, other, added],
      conversation: [narrow],
      message: [],
    });
    expect(grown.map((attachment) => attachment.uri)).toEqual([
      'gitnexus://repos',
      'gitnexus://other',
      'gitnexus://added',
    ]);
    const shrunk = resolveTurnAttachments({ pipeline: [wide, other], conversation: [], message: [] });
    expect(shrunk.map((attachment) => attachment.scope)).toEqual(['pipeline', 'pipeline']);
  });

  it('conversations of one pipeline keep their own resolutions: turns of one and the other in turn each get their list again', () => {
    const shared = stored('p1', 'gitnexus://repos', scope);
    const one = stored('c1', 'gitnexus://one', { conversationId: 'one' });
    const two = stored('c2', 'gitnexus://two', { conversationId: 'two' });
    const turn = (conversation: Attachment) =>
      resolveTurnAttachments({ pipeline: [shared], conversation: [conversation], message: [] });
    const [first, second] = [turn(one), turn(two)];
    expect(turn(one)).toBe(first);
    expect(turn(two)).toBe(second);
    expect(second.map((attachment) => attachment.uri)).toEqual(['gitnexus://two', 'gitnexus://repos']);
  });

  it('a list the store changes in place after handing it out is resolved as it is now', () => {
    const first = stored('p1', 'gitnexus://a', scope);
    const list: Attachment[] = [first];
    expect(resolveTurnAttachments({ pipeline: list, conversation: [], message: [] })).toHaveLength(1);
    list.push(stored('p2', 'gitnexus://b', scope));
    const again = resolveTurnAttachments({ pipeline: list, conversation: [], message: [] });
    expect(again.map((attachment) => attachment.uri)).toEqual(['gitnexus://a', 'gitnexus://b']);
    // Replaced in place by another pin at the same position.
    list[1] = stored('p3', 'gitnexus://c', scope);
    const replaced = resolveTurnAttachments({ pipeline: list, conversation: [], message: [] });
    expect(replaced.map((attachment) => attachment.uri)).toEqual(['gitnexus://a', 'gitnexus://c']);
  });

  it('pins without a version, or a turn with message attachments, are resolved anew', () => {
    const versioned = stored('p1', 'gitnexus://a', scope);
    const unversioned = pin('p2', 'gitnexus://b', scope);
    const rows = () =>
      resolveTurnAttachments({ pipeline: [versioned, unversioned], conversation: [], message: [] });
    expect(rows()).not.toBe(rows());
    const withMessage = () =>
      resolveTurnAttachments({
        pipeline: [versioned],
        conversation: [],
        message: [{ server: 'gitnexus', uri: 'gitnexus://m' }],
      });
    // Kept without the message, and still not answered to a turn that has one.
    resolveTurnAttachments({ pipeline: [versioned], conversation: [], message: [] });
    const [one, two] = [withMessage(), withMessage()];
    expect(two).not.toBe(one);
    expect(two.map((attachment) => attachment.uri)).toEqual(['gitnexus://m', 'gitnexus://a']);
  });
});
