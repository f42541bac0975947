import type { AttachmentTarget } from '../index.js';

/** The request's `uri` or `template` + `arguments` as the library's target union (checked by the schema: exactly one). */
export function toTarget(input: {
  readonly server: string;
  readonly uri?: string | undefined;
  readonly template?: string | undefined;
  readonly arguments?: Readonly<Record<string, string | readonly string[]>> | undefined;
}): AttachmentTarget {
  if (input.uri !== undefined) return { server: input.server, uri: input.uri };
  return { server: input.server, template: input.template as string, arguments: input.arguments ?? {} };
}

/** The attachment options the request gave, without the absent ones. */
export function attachmentOptionsOf(input: {
  readonly priority?: number | null | undefined;
  readonly maxTokens?: number | null | undefined;
  readonly bypassCache?: boolean | undefined;
  readonly ignoreAudience?: boolean | undefined;
  readonly skill?: boolean | undefined;
}) {
  return {
    ...(input.priority != null && { priority: input.priority }),
    ...(input.maxTokens != null && { maxTokens: input.maxTokens }),
    ...(input.bypassCache !== undefined && { bypassCache: input.bypassCache }),
    ...(input.ignoreAudience !== undefined && { ignoreAudience: input.ignoreAudience }),
    ...(input.skill !== undefined && { skill: input.skill }),
  };
}
