import {
  type ContextBlock,
  type InjectionTrace,
  renderText,
  type Turn,
  toAnthropicContent,
  toOpenAIMessages,
} from '../index.js';
import { frozenJson } from './frozen-json.js';
import { provideRequestSchema } from './request-schemas.js';
import { provideResponseSchema } from './response-schemas.js';
import { defineRoute } from './service-route.js';
import type { Tenant } from './service-tenants.js';
import { attachmentOptionsOf, toTarget } from './to-target.js';

/** POST /v1/provide: one turn, as `provider.provide()`; a failing server is a fate in the trace, not an error. */
export const provideRoute = defineRoute({
  method: 'POST',
  path: '/v1/provide',
  operationId: 'provide',
  summary:
    "The context for the next model call: the pipeline's and conversation's pins and the message's attachments, within the budget, with every attachment's fate in the trace.",
  tag: 'context',
  authenticated: true,
  body: provideRequestSchema,
  responses: [
    {
      status: 200,
      description: 'The blocks, the trace, and the rendered forms `format` asked for',
      schema: provideResponseSchema,
      example: {
        blocks: [
          { kind: 'preamble', text: 'The following context comes from MCP resources…\n' },
          {
            kind: 'resource',
            text: '<resource server="gitnexus" uri="gitnexus://repos">…</resource>\n',
            provenance: {
              scope: 'pipeline',
              server: 'gitnexus',
              uri: 'gitnexus://repos',
              mimeType: 'text/yaml',
              sha256: '9f2c…',
              truncated: false,
            },
          },
        ],
        trace: {
          turnId: 't-1',
          pipelineId: 'support',
          conversationId: 'c-42',
          startedAt: '2026-01-01T00:00:00.000Z',
          durationMs: 3.2,
          budget: {
            maxTokens: 4000,
            usedTokens: 120,
            tokenizer: 'tiktoken:o200k_base',
            exact: true,
            margin: 0,
          },
          entries: [
            {
              scope: 'pipeline',
              attachmentId: 'p-1',
              server: 'gitnexus',
              uri: 'gitnexus://repos',
              mimeType: 'text/yaml',
              status: 'injected',
              tokens: 110,
              originalTokens: 90,
              bytes: 400,
              sha256: '9f2c…',
              cache: 'miss',
              durationMs: 2.5,
              superseded: [],
              omittedContents: [],
              change: 'new',
            },
          ],
        },
        rendered: { text: 'The following context comes from MCP resources…\n<resource …>…</resource>\n' },
      },
    },
  ],
  errors: [400, 401, 403, 404, 413, 415, 503],
  async handle({ tenant, body, signal }, runtime) {
    tenant.requirePipeline(body.pipelineId);
    tenant.requireAgent(body.agentId);
    const turn: Turn = {
      pipelineId: body.pipelineId,
      ...(body.agentId !== undefined && { agentId: body.agentId }),
      ...(body.conversationId !== undefined && {
        conversationId: tenant.conversationKey(body.conversationId),
      }),
      ...(body.principal !== undefined && { principal: body.principal }),
      ...(body.turnId !== undefined && { turnId: body.turnId }),
      ...(body.message && {
        message: {
          ...(body.message.text !== undefined && { text: body.message.text }),
          ...(body.message.attachments && {
            attachments: body.message.attachments.map((attachment) => ({
              ...toTarget(attachment),
              ...attachmentOptionsOf(attachment),
            })),
          }),
        },
      }),
      ...(body.model && { model: body.model }),
      ...(body.budget && { budget: body.budget }),
      ...(body.bypassCache !== undefined && { bypassCache: body.bypassCache }),
      signal,
    };
    const { blocks, trace } = await runtime.provider.provide(turn);
    const formats = new Set(body.format ?? []);
    const rendered = formats.size > 0 && {
      ...(formats.has('text') && { text: renderText(blocks) }),
      ...(formats.has('openai') && { openai: toOpenAIMessages(blocks) }),
      ...(formats.has('anthropic') && { anthropic: toAnthropicContent(blocks, { cacheControl: true }) }),
    };
    return {
      status: 200,
      json: provideResponseJson(blocks, clientTrace(trace, tenant), rendered || undefined),
    };
  },
});

/**
 * `{ blocks, trace, rendered? }` as JSON, the frozen blocks and trace entries each serialized once
 * (a kept turn answers the same arrays again: only the trace's own fields are new).
 */
export function provideResponseJson(
  blocks: readonly ContextBlock[],
  trace: InjectionTrace,
  rendered: object | undefined,
): string {
  const { entries, ...head } = trace;
  const headJson = JSON.stringify(head);
  const traceJson = `${headJson.slice(0, -1)}${headJson.length > 2 ? ',' : ''}"entries":${frozenJson(entries)}}`;
  return `{"blocks":${frozenJson(blocks)},"trace":${traceJson}${rendered ? `,"rendered":${JSON.stringify(rendered)}` : ''}}`;
}

/** The trace with the conversation id the client sent (the store holds it under the tenant). */
export function clientTrace(trace: InjectionTrace, tenant: Tenant): InjectionTrace {
  if (trace.conversationId === undefined) return trace;
  const conversationId = tenant.conversationOf(trace.conversationId);
  if (conversationId === trace.conversationId) return trace;
  const { conversationId: _stored, ...rest } = trace;
  return { ...rest, ...(conversationId !== undefined && { conversationId }) };
}
