import { describe, expect, it } from 'vitest';
import { randomTurnId } from '../../src/trace/random-turn-id.js';

const version4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomTurnId', () => {
  // Three refills of the pool of 4,096 and a few more: every boundary crossed.
  const ids = Array.from({ length: 3 * 4096 + 5 }, () => randomTurnId());

  it('answers version 4 UUIDs (RFC 9562: version nibble 4, variant bits 10)', () => {
    for (const id of ids) expect(id).toMatch(version4);
  });

  it('never repeats, across refills of its pool', () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws every random digit from the random bytes: each position takes all 16 values, the variant digit its 4', () => {
    const digits = ids.map((id) => id.replaceAll('-', ''));
    for (let position = 0; position < 32; position++) {
      const seen = new Set(digits.map((id) => id[position]));
      if (position === 12) expect([...seen]).toEqual(['4']);
      else if (position === 16) expect([...seen].sort()).toEqual(['8', '9', 'a', 'b']);
      else expect(seen.size).toBe(16);
    }
  });
});
