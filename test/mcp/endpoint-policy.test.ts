import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import { checkEndpoint, endpointPolicySchema, isRestrictedAddress } from '../../src/mcp/endpoint-policy.js';
import { toIpv4IfMapped } from '../../src/mcp/ip-address.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';

const strict = endpointPolicySchema.parse({ preset: 'strict' });

describe('the strict endpoint preset', () => {
  it.each([
    'http://127.0.0.1:3000/mcp',
    'http://127.8.9.10/mcp',
    'http://localhost:3000/mcp',
    'http://10.0.0.5/mcp',
    'http://172.16.4.4/mcp',
    'http://192.168.1.10/mcp',
    'http://169.254.169.254/latest/meta-data',
    'http://100.100.100.200/',
    'http://0.0.0.0/',
    'http://[::1]/mcp',
    'http://[::ffff:127.0.0.1]/mcp',
    'http://[::ffff:a9fe:a9fe]/mcp',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/mcp',
    'http://metadata.google.internal/',
  ])('refuses %s with ENDPOINT_DENIED', async (url) => {
    await expect(checkEndpoint(url, strict, 'remote')).rejects.toMatchObject({
      code: 'ENDPOINT_DENIED',
      field: 'url',
      value: url,
      server: 'remote',
    });
  });

  it.each(['https://93.184.215.14/mcp', 'https://[2606:4700:4700::1111]/mcp'])(
    'allows the public address %s',
    async (url) => {
      await expect(checkEndpoint(url, strict)).resolves.toBeUndefined();
    },
  );

  it('judges IPv4-mapped IPv6 addresses as the IPv4 host they reach', () => {
    expect(toIpv4IfMapped('::ffff:169.254.169.254')).toBe('169.254.169.254');
    expect(toIpv4IfMapped('0:0:0:0:0:ffff:7f00:1')).toBe('127.0.0.1');
    expect(toIpv4IfMapped('2001:db8::1')).toBe('2001:db8::1');
    expect(isRestrictedAddress('::ffff:10.1.2.3')).toBe(true);
    expect(isRestrictedAddress('::ffff:8.8.8.8')).toBe(false);
  });
});

describe('the deny-list', () => {
  const policy = endpointPolicySchema.parse({
    denyHosts: ['blocked.example', '*.internal.example', '203.0.113.0/24'],
  });

  it.each([
    'https://blocked.example/mcp',
    'https://BLOCKED.example./mcp',
    'https://a.b.internal.example/',
    'https://203.0.113.9/',
  ])('refuses %s', async (url) => {
    await expect(checkEndpoint(url, policy)).rejects.toMatchObject({ code: 'ENDPOINT_DENIED' });
  });

  it('leaves other hosts alone, loopback included (the default preset is open)', async () => {
    await expect(checkEndpoint('http://127.0.0.1:1/mcp', policy)).resolves.toBeUndefined();
    await expect(checkEndpoint('https://198.51.100.1/', policy)).resolves.toBeUndefined();
  });
});

describe('McpServerRegistry with an endpoint policy', () => {
  it('by default connects to the fixture on 127.0.0.1', async () => {
    const fixture = await startGitNexusFixture({ transport: 'http' });
    const servers = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig } });
    onTestFinished(async () => {
      await servers.close();
      await fixture.close();
    });
    expect((await servers.listResources('gitnexus')).resources.length).toBeGreaterThan(0);
  });

  it('with the strict preset refuses the loopback fixture before any request reaches it', async () => {
    const fixture = await startGitNexusFixture({ transport: 'http' });
    const servers = new McpServerRegistry({
      mcpServers: { gitnexus: fixture.serverConfig },
      endpointPolicy: { preset: 'strict' },
      reconnect: false,
    });
    onTestFinished(async () => {
      await servers.close();
      await fixture.close();
    });
    await expect(servers.listResources('gitnexus')).rejects.toMatchObject({
      code: 'ENDPOINT_DENIED',
      server: 'gitnexus',
    });
    await expect(servers.readResource('gitnexus', 'gitnexus://repos')).rejects.toMatchObject({
      code: 'ENDPOINT_DENIED',
    });
    expect(fixture.sessionCount()).toBe(0);
    expect(servers.status('gitnexus')).toMatchObject({
      state: 'error',
      lastError: { code: 'ENDPOINT_DENIED' },
    });
  });
});
