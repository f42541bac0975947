import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { summarizeFailure } from '../../src/mcp/summarize-failure.js';

describe('summarizeFailure of the v2 client errors', () => {
  it('a reply of an unexpected content type is HTTP_ERROR naming the type', () => {
    const error = new SdkError(
      SdkErrorCode.ClientHttpUnexpectedContent,
      'Unexpected content type: text/plain',
      {
        contentType: 'text/plain',
      },
    );
    expect(summarizeFailure(error)).toEqual({
      code: 'HTTP_ERROR',
      reason: 'answered with text/plain instead of JSON-RPC',
    });
  });

  it('an invalid result names the first zod issue, or the message when it carries none', () => {
    const issues = JSON.stringify([
      { code: 'invalid_type', path: ['contents', 0, 'uri'], message: 'Invalid input: expected string' },
    ]);
    const invalid = new SdkError(SdkErrorCode.InvalidResult, `Invalid result for resources/read: ${issues}`);
    expect(summarizeFailure(invalid, 'resources/read')).toEqual({
      code: 'INVALID_RESULT',
      reason: 'invalid result: contents[0].uri: expected string',
    });
    const bare = new SdkError(SdkErrorCode.InvalidResult, 'Invalid result for resources/read: not an object');
    expect(summarizeFailure(bare, 'resources/read')).toEqual({
      code: 'INVALID_RESULT',
      reason: 'invalid result: (result): not an object',
    });
  });
});
