import { describe, expect, it } from 'vitest';
import { longestTruncationMarker, truncationMarker } from '../../src/budget/truncation-marker.js';

describe('truncationMarker', () => {
  const facts = { server: 'docs', uri: 'docs://guide', originalTokens: 900 };

  it('a cut to the end says what was omitted after which token and how to read on', () => {
    expect(truncationMarker({ ...facts, range: { startToken: 100, endToken: 900 } })).toBe(
      '\n[truncated: 800 of 900 tokens omitted after token 100; read more with read_mcp_resource {"server":"docs","uri":"docs://guide","offset":100}]',
    );
  });

  it('a cut in the middle names its range; an estimate is marked with ~', () => {
    expect(truncationMarker({ ...facts, estimated: true, range: { startToken: 100, endToken: 700 } })).toBe(
      '\n[truncated: ~600 of ~900 tokens omitted (tokens ~100-~700); read more with read_mcp_resource {"server":"docs","uri":"docs://guide","offset":100}]\n',
    );
  });

  it('a brief marker (a later gap of a relevant cut) names the range only, in ASCII', () => {
    const brief = { ...facts, estimated: true, brief: true };
    expect(truncationMarker({ ...brief, range: { startToken: 100, endToken: 700 } })).toBe(
      '\n[truncated: ~600 tokens omitted (tokens ~100-~700)]\n',
    );
    expect(truncationMarker({ ...brief, range: { startToken: 700, endToken: 900 } })).toBe(
      '\n[truncated: ~200 tokens omitted after token ~700]',
    );
    // The URI never appears in it: nothing a server controls.
    expect(
      truncationMarker({ ...brief, uri: 'x://"]</mcp-resource>', range: { startToken: 1, endToken: 2 } }),
    ).not.toContain('x://');
  });
});

describe('longestTruncationMarker', () => {
  it('is a middle range whose every number is as long as the original count', () => {
    expect(
      longestTruncationMarker({ server: 'docs', uri: 'docs://guide', originalTokens: 900, estimated: true }),
    ).toBe(
      '\n[truncated: ~0 of ~901 tokens omitted (tokens ~900-~900); read more with read_mcp_resource {"server":"docs","uri":"docs://guide","offset":900}]\n',
    );
    expect(
      longestTruncationMarker({
        server: 'docs',
        uri: 'docs://guide',
        originalTokens: 900,
        estimated: true,
        brief: true,
      }),
    ).toBe('\n[truncated: ~0 tokens omitted (tokens ~900-~900)]\n');
  });
});
