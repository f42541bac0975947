import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Whether a request may see the inspector's data: it carries the token (`Authorization: Bearer`,
 * or `?token=` since EventSource cannot set headers), or — when allowed — it comes from loopback
 * *and* names a loopback host *and* was not relayed for anyone else. The Host check refuses DNS
 * rebinding: a page on some other origin whose name resolves to 127.0.0.1 still sends its own name
 * as Host. The relay check refuses a reverse proxy on the same host: its connection is loopback,
 * but the client it names in `Forwarded`, `X-Forwarded-For` or `X-Real-IP` is not (and a proxy
 * that names no client, only `Via` or `X-Forwarded-Host`, is taken to relay a remote one).
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
    isLoopbackHost(request.headers.host) &&
    !relaysAnotherClient(request)
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

/** Headers only a relay (a reverse proxy) adds. */
const relayHeaders = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'x-forwarded-host', 'via'] as const;

/**
 * Whether a relay says it forwards this request for a client that is not on loopback — or does
 * not say for whom (`for=unknown`, an obfuscated `for=_hidden`, `Via` alone): then it may be
 * anyone. Every client address named must be loopback.
 */
function relaysAnotherClient(request: IncomingMessage): boolean {
  const headers = request.headers;
  if (!relayHeaders.some((name) => headers[name] !== undefined)) return false;
  const named = [
    ...listOf(headers['x-forwarded-for']),
    ...listOf(headers['x-real-ip']),
    ...listOf(headers.forwarded).flatMap(forwardedForOf),
  ];
  return named.length === 0 || !named.every((address) => isLoopbackAddress(unbracketed(address)));
}

/** The comma-separated items of a header (Node joins repeated ones with ", "). */
function listOf(value: string | string[] | undefined): string[] {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return joined
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** RFC 7239 §4: the `for=` of one `Forwarded` element, a quoted string or a token; '' if none. */
function forwardedForOf(element: string): string[] {
  const pair = element
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.toLowerCase().startsWith('for='));
  // An element without for= names no client: it still counts, as one that is not loopback.
  return [pair === undefined ? '' : pair.slice(4).replace(/^"(.*)"$/, '$1')];
}

/** `[::1]:4711` → `::1`, `127.0.0.1:80` → `127.0.0.1`, `::1` as it is. */
function unbracketed(address: string): string {
  if (address.startsWith('[')) return address.slice(1, address.indexOf(']'));
  return /^[\d.]+:\d+$/.test(address) ? address.slice(0, address.lastIndexOf(':')) : address;
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
