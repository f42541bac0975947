import { describe, expect, it } from 'vitest';
import type { AuditSubject } from '../../src/audit/audit-log.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import type { Principal } from '../../src/policy/access-request.js';
import { authorizeOperation, type DenialAudit } from '../../src/policy/authorize-operation.js';

const policy = new AccessPolicy({
  bindings: { support: { servers: ['docs'] } },
  agents: { reviewer: { servers: ['docs'], operations: ['read'] } },
});

/** The denials an audit was asked to record, in order. */
function recordingAudit() {
  const denied: { actor: Principal; subject: Omit<AuditSubject, 'actor'> }[] = [];
  const audit: DenialAudit = { recordDenied: (actor, subject) => denied.push({ actor, subject }) };
  return { audit, denied };
}

describe('authorizeOperation', () => {
  it('returns the policy’s decision, and an allowed request is not audited', () => {
    const { audit, denied } = recordingAudit();
    expect(
      authorizeOperation(
        policy,
        audit,
        { pipelineId: 'support', server: 'docs', operation: 'read', uri: 'd://a' },
        'resources/read',
      ),
    ).toEqual({ allowed: true, limits: { mimeTypes: [] } });
    expect(denied).toEqual([]);
  });

  it('a denial is audited under the MCP method, naming only the facts the request had', () => {
    const { audit, denied } = recordingAudit();
    const decision = authorizeOperation(
      policy,
      audit,
      { pipelineId: 'support', server: 'wiki', operation: 'list' },
      'resources/list',
    );
    expect(decision).toEqual({ allowed: false, reason: 'pipeline "support" is not bound to server "wiki"' });
    expect(denied).toStrictEqual([
      { actor: { pipelineId: 'support' }, subject: { server: 'wiki', operation: 'resources/list' } },
    ]);
  });

  it('the audited denial carries the agent, the uri, the prompt, the tool and the argument names when given', () => {
    const { audit, denied } = recordingAudit();
    authorizeOperation(
      policy,
      audit,
      { pipelineId: 'support', agentId: 'reviewer', server: 'docs', operation: 'list', uri: 'd://a' },
      'resources/list',
    );
    authorizeOperation(
      policy,
      audit,
      { pipelineId: 'support', agentId: 'reviewer', server: 'docs', operation: 'prompt', prompt: 'p' },
      'prompts/get',
      ['a', 'b'],
    );
    authorizeOperation(
      policy,
      audit,
      { pipelineId: 'ghost', server: 'docs', operation: 'tool', tool: 't' },
      'tools/call',
      [],
    );
    expect(denied).toStrictEqual([
      {
        actor: { pipelineId: 'support', agentId: 'reviewer' },
        subject: { server: 'docs', operation: 'resources/list', uri: 'd://a' },
      },
      {
        actor: { pipelineId: 'support', agentId: 'reviewer' },
        subject: { server: 'docs', operation: 'prompts/get', prompt: 'p', argumentNames: ['a', 'b'] },
      },
      {
        actor: { pipelineId: 'ghost' },
        subject: { server: 'docs', operation: 'tools/call', tool: 't', argumentNames: [] },
      },
    ]);
  });
});
