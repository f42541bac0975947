import { describe, expect, it } from 'vitest';
import { decideFromListing } from '../../src/policy/decide-from-listing.js';

const listed = { uri: 'docs://a', name: 'a' };

describe('decideFromListing', () => {
  it('an unlisted resource, or one listed without audience or size, is read', () => {
    expect(decideFromListing(undefined, false, 1)).toBeUndefined();
    expect(decideFromListing(listed, false, 1)).toBeUndefined();
  });

  it('content for an audience without the assistant is omitted, saying for whom it is', () => {
    expect(decideFromListing({ ...listed, annotations: { audience: ['user'] } }, false, undefined)).toEqual({
      omit: true,
      reason:
        'the server marks it for the user audience, not the assistant (pin with ignoreAudience to inject it anyway)',
    });
    expect(decideFromListing({ ...listed, annotations: { audience: [] } }, false, undefined)).toEqual({
      omit: true,
      reason:
        'the server marks it for the no audience, not the assistant (pin with ignoreAudience to inject it anyway)',
    });
  });

  it('an audience that includes the assistant, or a pin that ignores the audience, is read', () => {
    expect(
      decideFromListing({ ...listed, annotations: { audience: ['user', 'assistant'] } }, false, undefined),
    ).toBeUndefined();
    expect(
      decideFromListing({ ...listed, annotations: { audience: ['user'] } }, true, undefined),
    ).toBeUndefined();
    expect(decideFromListing({ ...listed, annotations: { priority: 1 } }, false, undefined)).toBeUndefined();
  });

  it('content listed as larger than the byte cap is not read; at the cap, or without a cap, it is', () => {
    expect(decideFromListing({ ...listed, size: 101 }, false, 100)).toEqual({
      omit: true,
      reason:
        "listed at 101 bytes, over the byte cap of 100: not read (raise the binding's maxBytes or the registry's maxReadBytes to read it)",
    });
    expect(decideFromListing({ ...listed, size: 100 }, false, 100)).toBeUndefined();
    expect(decideFromListing({ ...listed, size: 10_000 }, false, undefined)).toBeUndefined();
  });

  it('the audience is judged before the size', () => {
    expect(
      decideFromListing({ ...listed, size: 500, annotations: { audience: ['user'] } }, false, 100)?.reason,
    ).toMatch(/^the server marks it for the user audience/);
  });
});
