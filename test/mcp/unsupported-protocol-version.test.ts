import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { RpcError } from '../../src/mcp/rpc-error.js';
import { supportedVersionsOf } from '../../src/mcp/unsupported-protocol-version.js';

describe('supportedVersionsOf (a -32022 refusal of our revision)', () => {
  it('reads data.supported of a JSON-RPC -32022, keeping only strings', () => {
    const refusal = new RpcError(-32022, 'Unsupported protocol version', {
      supported: ['2026-07-28', 7, '2027-01-01'],
      requested: '2025-11-25',
    });
    expect(supportedVersionsOf(refusal)).toEqual(['2026-07-28', '2027-01-01']);
    expect(supportedVersionsOf(new RpcError(-32600, 'bad', { supported: ['2026-07-28'] }))).toBeUndefined();
  });

  it('reads it back out of an HTTP 400 the transport could not match to the request', () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } },
    });
    const refused = (status: number, text: string) =>
      new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
        status,
        statusText: 'Bad Request',
        text,
      });
    expect(supportedVersionsOf(refused(400, body))).toEqual(['2026-07-28']);
    expect(supportedVersionsOf(refused(404, body))).toBeUndefined();
    expect(supportedVersionsOf(refused(400, '<html>bad request</html>'))).toBeUndefined();
    expect(supportedVersionsOf(new Error(body))).toBeUndefined();
  });
});
