/**
 * A 2xx reply to an MCP POST that is not JSON-RPC (an HTML login page, a proxy's error page):
 * the server's status and media type, for an HTTP_ERROR that names them.
 */
export class HttpReplyError extends Error {
  override readonly name = 'HttpReplyError';
  readonly status: number;
  readonly contentType: string;

  constructor(status: number, contentType: string) {
    super(`HTTP ${status} with ${contentType || 'no content type'} instead of JSON-RPC`);
    this.status = status;
    this.contentType = contentType;
  }
}
