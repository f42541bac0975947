import type { CallToolResult, GetPromptResult } from '@modelcontextprotocol/client';
import { type AuditLog, type AuditMeasure, type AuditSubject, actorOf } from '../audit/audit-log.js';
import { contentBytes, countItems, namesOf, nothing, resultBytes, validActor } from './audit-measures.js';
import type { CappedReadResult } from './cap-read-result.js';
import { type Listing, type ListingKind, listingKinds } from './listing-kinds.js';
import type { CallOptions, CompleteRequest, ListOptions, ReadOptions } from './operation-schemas.js';
import type { Operations } from './registry-operations.js';
import type { Completion } from './server-operations.js';
import type { Skill } from './skill-schemas.js';

/**
 * The registry's operations with one audit record each, as the policy view wraps the registry
 * with a decision each: the same operations, each passed to the one it wraps. A record carries
 * the caller's actor (the operator unless `options.actor` names a pipeline), the principal, the
 * server and what was asked (URI, prompt or tool, argument names), never content or values.
 */
export class AuditedOperations implements Operations {
  readonly #inner: Operations;
  readonly #log: AuditLog;

  constructor(inner: Operations, log: AuditLog) {
    this.#inner = inner;
    this.#log = log;
  }

  list<Kind extends ListingKind>(
    kind: Kind,
    server: string,
    options: ListOptions = {},
  ): Promise<Listing<Kind>> {
    const subject = { server, operation: listingKinds[kind].operation };
    return this.#record(subject, options, countItems(kind), () => this.#inner.list(kind, server, options));
  }

  readResource(server: string, uri: string, options: ReadOptions = {}): Promise<CappedReadResult> {
    const subject = { server, operation: 'resources/read', uri: String(uri) };
    return this.#record(subject, options, contentBytes, () => this.#inner.readResource(server, uri, options));
  }

  getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    const subject = { server, operation: 'prompts/get', prompt: String(name), argumentNames: namesOf(args) };
    return this.#record(subject, options, resultBytes, () =>
      this.#inner.getPrompt(server, name, args, options),
    );
  }

  callTool(
    server: string,
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const subject = { server, operation: 'tools/call', tool: String(name), argumentNames: namesOf(args) };
    return this.#record(subject, options, resultBytes, () =>
      this.#inner.callTool(server, name, args, options),
    );
  }

  complete(server: string, request: CompleteRequest, options: CallOptions = {}): Promise<Completion> {
    // Read before validation, so a malformed request is audited as what it asked for.
    const target = request as { template?: unknown; prompt?: unknown; argument?: unknown; context?: unknown };
    const subject = {
      server,
      operation: 'completion/complete',
      ...(typeof target.template === 'string' && { uri: target.template }),
      ...(typeof target.prompt === 'string' && { prompt: target.prompt }),
      argumentNames: [String(target.argument), ...(namesOf(target.context) ?? [])],
    };
    return this.#record(subject, options, countItems('values'), () =>
      this.#inner.complete(server, request, options),
    );
  }

  getSkill(server: string, uri: string, options: CallOptions = {}): Promise<Skill> {
    const subject = { server, operation: 'skills/get', uri: String(uri) };
    return this.#record(subject, options, nothing, () => this.#inner.getSkill(server, uri, options));
  }

  subscription(
    method: 'resources/subscribe' | 'resources/unsubscribe',
    server: string,
    uri: string,
    options: CallOptions = {},
  ): Promise<void> {
    return this.#record({ server, operation: method, uri }, options, nothing, () =>
      this.#inner.subscription(method, server, uri, options),
    );
  }

  // --- Internal helpers ---

  #record<T>(
    subject: Omit<AuditSubject, 'actor'>,
    options: CallOptions,
    measure: (result: T) => AuditMeasure,
    run: () => Promise<T>,
  ): Promise<T> {
    const actor = actorOf(validActor(options));
    const principal = typeof options.principal === 'string' ? { principal: options.principal } : {};
    return this.#log.record({ ...subject, ...principal, actor }, run, measure);
  }
}
