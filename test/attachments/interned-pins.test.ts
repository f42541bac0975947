import { describe, expect, it } from 'vitest';
import { InternedPins } from '../../src/attachments/interned-pins.js';
import type { PinRow } from '../../src/attachments/sqlite-pin-row.js';

/** A row as a query answers it: a new object every time. */
const row = (id: string, changes: Partial<PinRow> = {}): PinRow => ({
  id,
  scope_kind: 'pipeline',
  scope_id: 'p',
  server: 's',
  target_uri: `x://${id}`,
  uri: `x://${id}`,
  template: null,
  arguments_json: null,
  priority: null,
  max_tokens: null,
  added_at: '2026-12-02T00:00:00.000Z',
  ignore_audience: null,
  skill: null,
  version: 1,
  ...changes,
});

describe('InternedPins', () => {
  it('answers the same frozen list for rows equal to the last ones, though the row objects are new', () => {
    const interned = new InternedPins();
    const first = interned.pinsOf('pipeline:p', [row('a'), row('b')], 'db');
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.map((pin) => pin.id)).toEqual(['a', 'b']);
    expect(interned.pinsOf('pipeline:p', [row('a'), row('b')], 'db')).toBe(first);
    // Another scope's list is its own.
    expect(interned.pinsOf('pipeline:q', [row('a'), row('b')], 'db')).not.toBe(first);
  });

  it('keeps each unchanged pin object, in the new order, and builds a new one for a row of a new version', () => {
    const interned = new InternedPins();
    const [a, b, c] = interned.pinsOf('pipeline:p', [row('a'), row('b'), row('c')], 'db');
    const reordered = interned.pinsOf('pipeline:p', [row('c'), row('a'), row('b')], 'db');
    expect(reordered[0]).toBe(c);
    expect(reordered[1]).toBe(a);
    expect(reordered[2]).toBe(b);
    // Every write raises a row's version (see PinRow.version): that is what tells a changed row.
    for (const changes of [
      { max_tokens: 300, version: 2 },
      { priority: 2, version: 3 },
      { skill: 1, version: 4 },
      { version: 5 },
    ] as const) {
      const [, again] = interned.pinsOf('pipeline:p', [row('c'), row('a', changes), row('b')], 'db');
      expect(again).not.toBe(a);
      expect(Object.isFrozen(again)).toBe(true);
    }
    const [, changed] = interned.pinsOf(
      'pipeline:p',
      [row('c'), row('a', { max_tokens: 300, version: 6 }), row('b')],
      'db',
    );
    expect(changed).toMatchObject({ id: 'a', maxTokens: 300 });
  });

  it('freezes template arguments; an empty scope is remembered as an empty frozen list', () => {
    const interned = new InternedPins();
    const templated = row('t', { uri: null, template: 'x://{v}', arguments_json: '{"v":["1","2"]}' });
    const [pin] = interned.pinsOf('pipeline:p', [templated], 'db', 1);
    expect(pin).toMatchObject({ template: 'x://{v}', arguments: { v: ['1', '2'] } });
    expect(Object.isFrozen((pin as unknown as { arguments: { v: string[] } }).arguments.v)).toBe(true);
    const empty = interned.pinsOf('pipeline:p', [], 'db', 2);
    expect(empty).toEqual([]);
    expect(Object.isFrozen(empty)).toBe(true);
    expect(interned.known('pipeline:p', 2)).toBe(empty);
    // A pin gone and back is a new object (nothing of the gone one is kept).
    expect(interned.pinsOf('pipeline:p', [templated], 'db', 3)[0]).not.toBe(pin);
  });

  it('knows a scope only under the stamp it was last listed with; equal rows under a new stamp take it', () => {
    const interned = new InternedPins();
    expect(interned.known('pipeline:p', 1)).toBeUndefined();
    const first = interned.pinsOf('pipeline:p', [row('a')], 'db', 1);
    expect(interned.known('pipeline:p', 1)).toBe(first);
    expect(interned.known('pipeline:p', 2)).toBeUndefined();
    expect(interned.known('pipeline:q', 1)).toBeUndefined();
    expect(interned.pinsOf('pipeline:p', [row('a')], 'db', 2)).toBe(first);
    expect(interned.known('pipeline:p', 2)).toBe(first);
    expect(interned.known('pipeline:p', 1)).toBeUndefined();
    expect(interned.stampOf('pipeline:p')).toBe(2);
    expect(interned.stampOf('pipeline:q')).toBeUndefined();
    // Listed without a stamp (a store that cannot tell): never known.
    interned.pinsOf('pipeline:p', [row('a')], 'db');
    expect(interned.known('pipeline:p', 2)).toBeUndefined();
    expect(interned.stampOf('pipeline:p')).toBeUndefined();
  });

  it('remembers at most maxScopes scopes, the least recently listed dropped first', () => {
    const interned = new InternedPins(1);
    const first = interned.pinsOf('pipeline:p', [row('a')], 'db');
    interned.pinsOf('pipeline:q', [row('a')], 'db');
    const again = interned.pinsOf('pipeline:p', [row('a')], 'db');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
