import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { ContextError } from '../errors.js';
import { redactUrlUserinfo } from '../options/redact-url-userinfo.js';
import { toIpv4IfMapped } from './ip-address.js';

/**
 * Where remote servers may live. `open` (the default) restricts nothing but `denyHosts`;
 * `strict` is for hosts that accept user-supplied server URLs: no loopback, private,
 * link-local, carrier-grade NAT, multicast, reserved or cloud-metadata address.
 */
export const endpointPolicySchema = z.strictObject({
  preset: z.enum(['open', 'strict']).default('open'),
  /** Host names (`api.example.com`, `*.internal`), IP literals or CIDR ranges (`10.0.0.0/8`). */
  denyHosts: z.array(z.string().min(1)).default([]),
});

export type EndpointPolicyOptions = z.input<typeof endpointPolicySchema>;
export type EndpointPolicy = z.output<typeof endpointPolicySchema>;

/** An address a host name was checked at; the connection must go there and nowhere else. */
export interface CheckedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Whether the policy restricts anything (the default `open` policy with no deny-list does not). */
export function restrictsEndpoints(policy: EndpointPolicy): boolean {
  return policy.preset !== 'open' || policy.denyHosts.length > 0;
}

/**
 * Throws ENDPOINT_DENIED unless `url` may be connected to. The host name and every address
 * it resolves to (node:dns lookup, as the connection will) are checked, so a public name
 * pointing at 169.254.169.254 is refused too. `createEndpointFetch` pins each connection to
 * the addresses checked: a second lookup could answer differently (DNS rebinding).
 */
export async function checkEndpoint(url: string, policy: EndpointPolicy, server?: string): Promise<void> {
  await checkEndpointAddresses(url, policy, server);
}

/** `checkEndpoint`, returning the addresses checked (none under a policy that restricts nothing). */
export async function checkEndpointAddresses(
  url: string,
  policy: EndpointPolicy,
  server?: string,
): Promise<readonly CheckedAddress[]> {
  if (!restrictsEndpoints(policy)) return [];
  const hostname = hostnameOf(url);
  // The refusal is shown (status, trace, CLI): the URL without its userinfo.
  const shown = redactUrlUserinfo(url).value;
  const deny = (reason: string): never => {
    throw new ContextError('ENDPOINT_DENIED', `endpoint ${shown} is not allowed: ${reason}`, {
      field: 'url',
      value: shown,
      ...(server !== undefined && { server }),
    });
  };
  const hostRule = policy.denyHosts.find((rule) => matchesHostRule(hostname, rule));
  if (hostRule !== undefined) deny(`host "${hostname}" matches the deny-list entry "${hostRule}"`);
  if (policy.preset === 'strict' && strictDeniedNames.has(hostname)) deny(`"${hostname}" is a metadata host`);
  const addresses: CheckedAddress[] = isIP(hostname)
    ? [{ address: hostname, family: isIP(hostname) as 4 | 6 }]
    : (
        await lookup(hostname, { all: true, verbatim: true }).catch((error: unknown) =>
          deny(`"${hostname}" does not resolve (${error instanceof Error ? error.message : String(error)})`),
        )
      ).map((entry) => ({ address: entry.address, family: entry.family as 4 | 6 }));
  for (const { address } of addresses) {
    const rule = policy.denyHosts.find((entry) => matchesAddressRule(address, entry));
    if (rule !== undefined) deny(`address ${address} matches the deny-list entry "${rule}"`);
    if (policy.preset === 'strict' && isRestrictedAddress(address)) {
      deny(`address ${address} is loopback, private, link-local, metadata or reserved`);
    }
  }
  return addresses;
}

/** Whether the strict preset refuses this IP address (IPv4, IPv6, IPv4-mapped IPv6). */
export function isRestrictedAddress(address: string): boolean {
  const normalized = toIpv4IfMapped(address);
  const family = isIP(normalized);
  if (family === 4) return restrictedRanges.check(normalized, 'ipv4');
  if (family === 6) return restrictedRanges.check(normalized, 'ipv6');
  // Not an address at all: refuse rather than guess.
  return true;
}

// --- Internal helpers ---

const restrictedRanges = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (Alibaba metadata 100.100.100.200 is here)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  restrictedRanges.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b::', 96], // NAT64: may reach any IPv4 address, private ones included
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254 is here)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  restrictedRanges.addSubnet(network, prefix, 'ipv6');
}

const strictDeniedNames = new Set(['metadata.google.internal', 'metadata', 'instance-data']);

function hostnameOf(url: string): string {
  const hostname = new URL(url).hostname.toLowerCase();
  const unbracketed = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  // A trailing dot names the same host ("localhost." is localhost).
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

function matchesHostRule(hostname: string, rule: string): boolean {
  const normalized = rule.toLowerCase();
  if (normalized.startsWith('*.')) return hostname.endsWith(normalized.slice(1));
  return hostname === normalized;
}

function matchesAddressRule(address: string, rule: string): boolean {
  const [network = '', prefixText] = rule.split('/');
  const family = isIP(network);
  if (family === 0) return false;
  const candidate = toIpv4IfMapped(address);
  const candidateFamily = isIP(candidate);
  if (candidateFamily !== family) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  if (prefixText === undefined) list.addAddress(toIpv4IfMapped(network), type);
  else list.addSubnet(network, Number(prefixText), type);
  return list.check(candidate, type);
}
