import { ContextError, type ContextErrorCode } from '../errors.js';
import type { AuditActor, AuditRecord, AuditSink } from './audit-record.js';

/** The facts of an operation known before it runs. */
export type AuditSubject = Pick<AuditRecord, 'actor' | 'operation'> & { readonly server: string } & Partial<
    Pick<AuditRecord, 'principal' | 'uri' | 'prompt' | 'tool' | 'argumentNames'>
  >;

/** What a result weighs: content bytes or listed items. */
export type AuditMeasure = Partial<Pick<AuditRecord, 'bytes' | 'items'>>;

export const operatorActor: AuditActor = { kind: 'operator' };

/** The actor a call option names: a pipeline (and agent), or the operator when absent. */
export function actorOf(principal: { pipelineId: string; agentId?: string } | undefined): AuditActor {
  if (principal === undefined) return operatorActor;
  return {
    kind: 'pipeline',
    pipelineId: principal.pipelineId,
    ...(principal.agentId !== undefined && { agentId: principal.agentId }),
  };
}

/**
 * Writes one record per operation to every sink. A sink's failure (thrown or rejected) goes
 * to `onError` and never to the operation; `flush()` waits for writes still in flight.
 */
export class AuditLog {
  readonly #sinks: readonly AuditSink[];
  readonly #onError: (error: unknown) => void;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(sinks: readonly AuditSink[], onError: (error: unknown) => void) {
    this.#sinks = sinks;
    this.#onError = onError;
  }

  /** Runs `run` and records how it went; its result or error passes through unchanged. */
  async record<T>(
    subject: AuditSubject,
    run: () => Promise<T>,
    measure: (result: T) => AuditMeasure,
  ): Promise<T> {
    const at = new Date().toISOString();
    const started = performance.now();
    try {
      const result = await run();
      this.write({
        at,
        ...subject,
        durationMs: elapsed(started),
        ...safeMeasure(measure, result),
        status: 'ok',
      });
      return result;
    } catch (error) {
      this.write({ at, ...subject, durationMs: elapsed(started), ...failureOf(error) });
      throw error;
    }
  }

  /** Records an operation the access policy refused before anything was sent. */
  denied(subject: AuditSubject): void {
    this.write({
      at: new Date().toISOString(),
      ...subject,
      durationMs: 0,
      status: 'denied',
      errorCode: 'POLICY_DENIED',
    });
  }

  /**
   * Records a provider turn the access policy refused whole, before anything was resolved or
   * sent: its pipeline or agent has no binding. It named no server, so the record names none.
   */
  refusedTurn(
    actor: AuditActor,
    errorCode: Extract<ContextErrorCode, 'UNKNOWN_PIPELINE' | 'UNKNOWN_AGENT'>,
    principal: string | undefined,
  ): void {
    this.write({
      at: new Date().toISOString(),
      actor,
      ...(principal !== undefined && { principal }),
      operation: 'turn',
      durationMs: 0,
      status: 'denied',
      errorCode,
    });
  }

  write(record: AuditRecord): void {
    for (const sink of this.#sinks) {
      try {
        const written = sink.write(record);
        if (written instanceof Promise) {
          const tracked = written.catch(this.#onError).finally(() => this.#pending.delete(tracked));
          this.#pending.add(tracked);
        }
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }
}

// --- Internal helpers ---

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

function safeMeasure<T>(measure: (result: T) => AuditMeasure, result: T): AuditMeasure {
  try {
    return measure(result);
  } catch {
    return {};
  }
}

function failureOf(error: unknown): Pick<AuditRecord, 'status' | 'errorCode' | 'rpcCode'> {
  if (!ContextError.isInstance(error)) return { status: 'error', errorCode: 'INTERNAL_ERROR' };
  return {
    status: error.code === 'POLICY_DENIED' ? 'denied' : 'error',
    errorCode: error.code,
    ...(error.rpcCode !== undefined && { rpcCode: error.rpcCode }),
  };
}
