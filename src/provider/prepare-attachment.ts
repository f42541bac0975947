import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import { type ConvertedResource, convertContents } from '../convert/convert-contents.js';
import { escapeFrameContent } from '../render/frame-resource.js';
import type { ComposableAttachment } from './compose-context.js';

export interface Prepared {
  readonly converted: ConvertedResource;
  readonly composable: ComposableAttachment;
}

/** Step 4, convert: a read's contents become escaped, tokenized content ready for the budget. */
export async function prepareAttachment(
  attachment: ResolvedAttachment,
  result: ReadResourceResult,
  tokenizer: Tokenizer,
): Promise<Prepared> {
  const converted = convertContents(result.contents);
  const body = escapeFrameContent(converted.body);
  const composable: ComposableAttachment = {
    provenance: {
      scope: attachment.scope,
      server: attachment.server,
      uri: attachment.uri,
      mimeType: converted.mimeType,
      sha256: converted.sha256,
    },
    body,
    bodyTokens: await tokenizer.encode(body),
    ...(attachment.maxTokens !== undefined && { capTokens: attachment.maxTokens }),
  };
  return { converted, composable };
}
