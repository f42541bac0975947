import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import { JsonlAuditSink } from '../../src/audit/jsonl-audit-sink.js';
import { MemoryAuditSink } from '../../src/audit/memory-audit-sink.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { startAuthGate } from '../credentials/support/auth-gate.js';

function registry(options: McpServerRegistryOptions): McpServerRegistry {
  const servers = new McpServerRegistry({ reconnect: false, ...options });
  onTestFinished(() => servers.close());
  return servers;
}

function temporaryPath(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-audit-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return join(directory, name);
}

describe.each(['memory', 'http'] as const)('audit over %s', (transport) => {
  it('records one entry per operation: actor, server, operation, target, duration, size, status', async () => {
    const fixture = await startGitNexusFixture({ transport });
    onTestFinished(() => fixture.close());
    const audit = new MemoryAuditSink();
    const servers = registry({ mcpServers: { gitnexus: fixture.serverConfig }, audit });
    const policy = new AccessPolicy({
      bindings: { support: { servers: ['gitnexus'] } },
      agents: { triage: { servers: ['gitnexus'] } },
    });

    await servers.listResources('gitnexus', { all: true });
    await policy
      .bind(servers, { pipelineId: 'support', agentId: 'triage' })
      .readResource('gitnexus', 'gitnexus://repos');
    await servers.getPrompt('gitnexus', 'detect_impact', { scope: 'all' });
    await expect(servers.readResource('gitnexus', 'gitnexus://repo/nope/context')).rejects.toMatchObject({
      code: 'RESOURCE_ERROR_BODY',
    });
    await servers.readResource('gitnexus', 'gitnexus://setup', { actor: { pipelineId: 'support' } });

    expect(audit.records).toEqual([
      expect.objectContaining({
        actor: { kind: 'operator' },
        server: 'gitnexus',
        operation: 'resources/list',
        items: 2,
        status: 'ok',
      }),
      expect.objectContaining({
        actor: { kind: 'pipeline', pipelineId: 'support', agentId: 'triage' },
        operation: 'resources/read',
        uri: 'gitnexus://repos',
        bytes: expect.any(Number),
        status: 'ok',
      }),
      expect.objectContaining({
        actor: { kind: 'operator' },
        operation: 'prompts/get',
        prompt: 'detect_impact',
        argumentNames: ['scope'],
        status: 'ok',
      }),
      expect.objectContaining({
        operation: 'resources/read',
        uri: 'gitnexus://repo/nope/context',
        status: 'error',
        errorCode: expect.any(String),
      }),
      expect.objectContaining({
        actor: { kind: 'pipeline', pipelineId: 'support' },
        uri: 'gitnexus://setup',
        status: 'ok',
      }),
    ]);
    for (const record of audit.records) {
      expect(record.durationMs).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(record.at))).toBe(false);
    }
    expect(audit.records[1]?.bytes).toBeGreaterThan(100);
  });

  it('records refusals by the access policy as denied, with nothing sent to the server', async () => {
    const fixture = await startGitNexusFixture({ transport });
    onTestFinished(() => fixture.close());
    const audit = new MemoryAuditSink();
    const servers = registry({ mcpServers: { gitnexus: fixture.serverConfig }, audit });
    const policy = new AccessPolicy({
      bindings: { support: { servers: [{ name: 'gitnexus', resources: ['gitnexus://repos'] }] } },
    });
    const bound = policy.bind(servers, { pipelineId: 'support' });
    await expect(bound.readResource('gitnexus', 'gitnexus://setup')).rejects.toMatchObject({
      code: 'POLICY_DENIED',
    });
    await expect(
      policy.bind(servers, { pipelineId: 'other' }).getPrompt('gitnexus', 'detect_impact', { scope: 'x' }),
    ).rejects.toMatchObject({
      code: 'POLICY_DENIED',
    });
    expect(fixture.readCount()).toBe(0);
    expect(audit.records).toEqual([
      expect.objectContaining({
        actor: { kind: 'pipeline', pipelineId: 'support' },
        operation: 'resources/read',
        uri: 'gitnexus://setup',
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      }),
      expect.objectContaining({
        actor: { kind: 'pipeline', pipelineId: 'other' },
        operation: 'prompts/get',
        prompt: 'detect_impact',
        argumentNames: ['scope'],
        status: 'denied',
      }),
    ]);
  });
});

describe('audit secrecy', () => {
  it('no audit output contains the credential, resource content, or prompt argument values', async () => {
    const token = 'audit-bearer-4d2c9e7f1a3b5c6d';
    const fixture = await startGitNexusFixture({ transport: 'http' });
    onTestFinished(() => fixture.close());
    const gate = await startAuthGate({
      target: fixture.url as string,
      admit: (request) => request.headers.authorization === `Bearer ${token}`,
    });
    const memory = new MemoryAuditSink();
    const jsonl = new JsonlAuditSink(temporaryPath('audit.jsonl'));
    const audit = [memory, jsonl];
    const servers = registry({
      mcpServers: { gated: { type: 'http', url: gate.url, auth: { type: 'bearer', token } } },
      audit,
    });
    const policy = new AccessPolicy({ bindings: { support: { servers: ['gated'] } } });
    const bound = policy.bind(servers, { pipelineId: 'support' });

    const read = await bound.readResource('gated', 'gitnexus://setup');
    const content = (read.contents[0] as { text: string }).text;
    const contentSample = content.slice(0, 60);
    const argumentValue = 'checkout-regression-7781';
    const prompt = await servers.getPrompt('gated', 'detect_impact', {
      scope: 'compare',
      base_ref: argumentValue,
    });
    expect(JSON.stringify(prompt)).toContain(argumentValue);
    await expect(
      servers.getPrompt('gated', 'no_such_prompt', { secret_arg: argumentValue }),
    ).rejects.toMatchObject({ code: 'PROTOCOL_ERROR' });
    expect(await servers.callTool('gated', 'query', { query: argumentValue })).toMatchObject({
      isError: true,
    });
    // A second registry whose credential the gate refuses: the 401 body echoes it.
    const refused = registry({
      mcpServers: { gated: { type: 'http', url: gate.url, auth: { type: 'bearer', token: `${token}-old` } } },
      audit,
    });
    await expect(refused.listResources('gated')).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    await servers.flushAudit();
    await refused.flushAudit();

    const outputs = [JSON.stringify(memory.records), readFileSync(jsonl.path, 'utf8')];
    expect(memory.records.map((record) => [record.operation, record.status, record.errorCode])).toEqual([
      ['resources/read', 'ok', undefined],
      ['prompts/get', 'ok', undefined],
      ['prompts/get', 'error', 'PROTOCOL_ERROR'],
      ['tools/call', 'ok', undefined],
      ['resources/list', 'error', 'CONNECT_FAILED'],
    ]);
    expect(readFileSync(jsonl.path, 'utf8').trim().split('\n')).toHaveLength(memory.records.length);
    for (const output of outputs) {
      expect(output).not.toContain(token);
      expect(output).not.toContain(contentSample);
      expect(output).not.toContain(argumentValue);
      expect(output).toContain('"base_ref"');
    }
  });

  it('a failing sink never fails the operation; its error goes to onAuditError', async () => {
    const fixture = await startGitNexusFixture({ transport: 'memory' });
    onTestFinished(() => fixture.close());
    const failures: unknown[] = [];
    const servers = registry({
      mcpServers: { gitnexus: fixture.serverConfig },
      audit: [
        { write: () => Promise.reject(new Error('disk full')) },
        {
          write: () => {
            throw new Error('sink crashed');
          },
        },
      ],
      onAuditError: (error) => failures.push(error),
    });
    const read = await servers.readResource('gitnexus', 'gitnexus://repos');
    expect(read.contents).toHaveLength(1);
    await servers.flushAudit();
    expect(failures.map((error) => (error as Error).message).sort()).toEqual(['disk full', 'sink crashed']);
  });

  it('the JSONL sink keeps the order of operations, one JSON object per line', async () => {
    const sink = new JsonlAuditSink(temporaryPath('ordered.jsonl'));
    const records = Array.from({ length: 50 }, (_, index) => ({
      at: new Date().toISOString(),
      actor: { kind: 'operator' as const },
      server: 's',
      operation: 'resources/read',
      uri: `u://${index}`,
      durationMs: 1,
      status: 'ok' as const,
    }));
    for (const record of records) void sink.write(record);
    await sink.flush();
    const lines = readFileSync(sink.path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { uri: string });
    expect(lines.map((line) => line.uri)).toEqual(records.map((record) => record.uri));
  });
});
