import { describe, expect, it } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { parseOptions } from '../../src/options/parse-options.js';
import { providerOptionsSchema } from '../../src/provider/provider-options.js';

const method = () => undefined;
/** The smallest options the schema takes: objects with the methods each part needs. */
const parts = {
  servers: { readResource: method, has: method },
  attachments: { pin: method, unpin: method, list: method },
  policy: { authorize: method, bind: method },
  budget: { maxTokens: 100 },
};
const parse = (options: object) => parseOptions(providerOptionsSchema, options, 'options');
const failure = (options: object) => {
  try {
    parse(options);
  } catch (error) {
    return error;
  }
  throw new Error('the options were accepted');
};

describe('providerOptionsSchema', () => {
  it('takes parts that have the methods it needs, and fills in the defaults', () => {
    const parsed = parse(parts);
    expect(parsed.servers).toBe(parts.servers);
    expect(parsed).toMatchObject({
      readTimeoutMs: 10_000,
      turnDeadlineMs: 30_000,
      serverInstructions: false,
      skills: { maxFiles: 512, maxBytes: 16 * 1024 * 1024, maxPerTurn: 8 },
    });
    expect(parsed.cache).toBeUndefined();
  });

  it.each([
    ['servers', { readResource: method }, 'servers must be an McpServerRegistry'],
    ['servers', { has: method }, 'servers must be an McpServerRegistry'],
    ['attachments', { pin: method, unpin: method }, 'attachments must be an AttachmentStore'],
    ['policy', { bind: method }, 'policy must be an AccessPolicy'],
    ['converters', { find: method }, 'converters must be a ConverterRegistry'],
    ['telemetry', { startSpan: method, withSpan: method }, 'telemetry must come from openTelemetry()'],
    ['servers', null, 'servers must be an McpServerRegistry'],
    [
      'servers',
      Object.assign(() => undefined, { readResource: method, has: method }),
      'servers must be an McpServerRegistry',
    ],
    ['servers', { readResource: method, has: 'yes' }, 'servers must be an McpServerRegistry'],
  ])('refuses %s without its methods (%o)', (field, value, message) => {
    expect(failure({ ...parts, [field]: value })).toMatchObject({
      code: 'INVALID_OPTION',
      field: `options.${field}`,
      message: expect.stringContaining(message),
    });
  });

  it('takes a tokenizer with encode, decode and count, and refuses one without count', () => {
    const tokenizer = { encode: method, decode: method, count: method };
    expect(parse({ ...parts, tokenizer }).tokenizer).toBe(tokenizer);
    expect(failure({ ...parts, tokenizer: { encode: method, decode: method } })).toMatchObject({
      field: 'options.tokenizer',
    });
  });

  it('cache: false, a ContentCache, or its options', () => {
    expect(parse({ ...parts, cache: false }).cache).toBe(false);
    const cache = new ContentCache();
    expect(parse({ ...parts, cache }).cache).toBe(cache);
    expect(parse({ ...parts, cache: { ttlMs: 5 } }).cache).toMatchObject({ ttlMs: 5 });
    expect(failure({ ...parts, cache: true })).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'options.cache',
    });
  });
});
