import { describe, expect, it } from 'vitest';
import { mimeTypeAllowed } from '../../src/convert/mime-type-pattern.js';

describe('mimeTypeAllowed', () => {
  it('an exact pattern admits that essence, whatever its parameters, case or surrounding spaces', () => {
    expect(mimeTypeAllowed('text/markdown; charset=utf-8', ['text/markdown'])).toBe(true);
    expect(mimeTypeAllowed('text/markdown', ['  Text/Markdown  '])).toBe(true);
    expect(mimeTypeAllowed('TEXT/MARKDOWN', ['text/markdown; charset=utf-8'])).toBe(true);
    expect(mimeTypeAllowed('text/markdownx', ['text/markdown'])).toBe(false);
    expect(mimeTypeAllowed('text/plain', ['text/markdown'])).toBe(false);
  });

  it('`*` and `*/*` admit anything, even a missing or unparsable type', () => {
    expect(mimeTypeAllowed('text/plain', ['*/*'])).toBe(true);
    expect(mimeTypeAllowed(undefined, ['*/*'])).toBe(true);
    expect(mimeTypeAllowed('not a type', [' * '])).toBe(true);
    expect(mimeTypeAllowed(undefined, ['*'])).toBe(true);
  });

  it('a missing or unparsable type is admitted by nothing else', () => {
    expect(mimeTypeAllowed(undefined, ['text/plain', 'text/*', '+json'])).toBe(false);
    expect(mimeTypeAllowed('garbage', ['text/plain', 'text/*', '+json', 'garbage'])).toBe(false);
  });

  it('`+suffix` admits the types with that structured suffix only', () => {
    expect(mimeTypeAllowed('application/ld+json', ['+json'])).toBe(true);
    expect(mimeTypeAllowed('application/ld+json', ['+JSON'])).toBe(true);
    expect(mimeTypeAllowed('application/ld+xml', ['+json'])).toBe(false);
    expect(mimeTypeAllowed('application/json', ['+json'])).toBe(false);
  });

  it('`type/*` admits a whole type and nothing of another', () => {
    expect(mimeTypeAllowed('text/csv', ['text/*'])).toBe(true);
    expect(mimeTypeAllowed('text/csv', ['Text/*'])).toBe(true);
    expect(mimeTypeAllowed('application/csv', ['text/*'])).toBe(false);
    expect(mimeTypeAllowed('textual/csv', ['text/*'])).toBe(false);
  });

  it('admits when any pattern does, and an empty list admits nothing', () => {
    expect(mimeTypeAllowed('image/png', ['text/*', '+json', 'image/png'])).toBe(true);
    expect(mimeTypeAllowed('image/png', ['text/*', '+json'])).toBe(false);
    expect(mimeTypeAllowed('image/png', [])).toBe(false);
  });
});
