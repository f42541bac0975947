// What the fleet's fault tests feed a Redis behind the tier's back: the tier must treat all of it
// as untrusted input (dropped and counted, never thrown, never served).

/**
 * What anyone who can publish on the channel might send: not JSON, JSON of the wrong type, the
 * wrong shape, a kind the tier never publishes, and messages far larger than any invalidation.
 */
export const hostileMessages: readonly (string | Buffer)[] = [
  'null',
  '42',
  '"a string"',
  'true',
  '[]',
  '{}',
  'not json {',
  Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3]),
  '{"origin":"x"}',
  '{"origin":"x","invalidation":null}',
  '{"origin":"x","invalidation":5}',
  '{"origin":"x","invalidation":{"kind":"updated"}}',
  '{"origin":"x","invalidation":{"kind":"updated","server":5,"uri":"x://a"}}',
  '{"origin":"x","invalidation":{"kind":"updated","server":"s","uri":["x://a"]}}',
  '{"origin":"x","invalidation":{"kind":"all-stale","reason":"from the wire"}}',
  '{"origin":"x","invalidation":{"kind":"drop-everything","server":"s"}}',
  '{"origin":5,"invalidation":{"kind":"list-changed","server":"s"}}',
  '{"origin":"x","generation":-1,"invalidation":{"kind":"list-changed","server":"s"}}',
  '{"origin":"x","generation":"7","invalidation":{"kind":"list-changed","server":"s"}}',
  `{"origin":"x","invalidation":{"kind":"updated","server":"s","uri":"x://${'a'.repeat(2 * 1024 * 1024)}"}}`,
  'x'.repeat(4 * 1024 * 1024),
  `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
];

const validSha256 = 'a'.repeat(64);
const readResult = { contents: [{ uri: 'x://a', mimeType: 'text/plain', text: 'planted' }] };

/**
 * Bodies planted at a shared copy's key (under the current generations, so the tier would serve
 * them): JSON of the wrong type, the wrong shape, fields of the wrong types, a result no server
 * could send. None of them is a copy.
 */
export const hostileCopyBodies: readonly (readonly [name: string, body: string])[] = [
  ['null', 'null'],
  ['a number', '42'],
  ['a string', '"a string"'],
  ['an array', '[]'],
  ['an empty object', '{}'],
  ['not JSON', 'not json {'],
  ['a result without its envelope', JSON.stringify(readResult)],
  [
    'contents that are a string',
    JSON.stringify({ result: { contents: 'x' }, sha256: validSha256, bytes: 1, fetchedAt: Date.now() }),
  ],
  [
    'an item with neither text nor blob',
    JSON.stringify({
      result: { contents: [{ uri: 'x://a' }] },
      sha256: validSha256,
      bytes: 0,
      fetchedAt: Date.now(),
    }),
  ],
  ['sha256 a number', JSON.stringify({ result: readResult, sha256: 5, bytes: 7, fetchedAt: Date.now() })],
  [
    'bytes a string',
    JSON.stringify({ result: readResult, sha256: validSha256, bytes: '7', fetchedAt: Date.now() }),
  ],
  [
    'fetchedAt a string',
    JSON.stringify({ result: readResult, sha256: validSha256, bytes: 7, fetchedAt: 'now' }),
  ],
  ['fetchedAt missing', JSON.stringify({ result: readResult, sha256: validSha256, bytes: 7 })],
];
