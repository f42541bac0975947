import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Whether a request may see the inspector's data: it carries the token (`Authorization: Bearer`,
 * or `?token=` since EventSource cannot set headers), or — when allowed — it comes from loopback
 * *and* names a loopback host. The Host check refuses DNS rebinding: a page on some other origin
 * whose name resolves to 127.0.0.1 still sends its own name as Host.
 */
export function authorizeRequest(
  request: IncomingMessage,
  url: URL,
  options: { readonly token: string; readonly loopbackWithoutToken: boolean },
): boolean {
  const presented = bearerOf(request.headers.authorization) ?? url.searchParams.get('token');
  if (presented !== null && presented !== undefined && sameSecret(presented, options.token)) return true;
  return (
    options.loopbackWithoutToken &&
    isLoopbackAddress(request.socket.remoteAddress) &&
    isLoopbackHost(request.headers.host)
  );
}

// --- Internal helpers ---

function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
}

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  return name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}
