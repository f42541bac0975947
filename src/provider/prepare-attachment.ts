import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import type { DerivedCache } from '../cache/derived-cache.js';
import {
  type ConvertedResource,
  type ConvertedSection,
  convertContents,
} from '../convert/convert-contents.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { escapeFrameContent } from '../render/frame-resource.js';
import type { ComposableAttachment } from './compose-context.js';

export interface Prepared {
  readonly converted: ConvertedResource;
  readonly composable: ComposableAttachment;
}

/**
 * Step 4, convert: a read's contents become escaped sections ready for the budget. Independent
 * of the turn (model, budget, message), so a cached read can be prepared once. Counting waits for
 * composeContext, which counts only as far as the turn's budget needs.
 */
export async function prepareAttachment(
  attachment: ResolvedAttachment,
  result: ReadResourceResult,
  _tokenizer?: Tokenizer,
  converters?: ConverterRegistry,
  derived?: { readonly cache: DerivedCache; readonly sha256: string },
): Promise<Prepared> {
  const key = derived?.cache.conversionKey(derived.sha256, converters);
  let conversion = key === undefined ? undefined : derived?.cache.conversion(key);
  if (!conversion) {
    const converted = convertContents(result.contents, converters);
    conversion = { converted, sections: converted.sections.map(escapeSection) };
    if (key !== undefined) derived?.cache.keepConversion(key, conversion);
  }
  const { converted, sections } = conversion;
  const composable: ComposableAttachment = {
    provenance: {
      scope: attachment.scope,
      server: attachment.server,
      uri: attachment.uri,
      mimeType: converted.mimeType,
      sha256: converted.sha256,
    },
    sections,
    ...(key !== undefined && { contentKey: key }),
    ...(attachment.maxTokens !== undefined && { capTokens: attachment.maxTokens }),
  };
  return { converted, composable };
}

// --- Internal helpers ---

function escapeSection(section: ConvertedSection): ConvertedSection {
  return section.kind === 'text' ? { ...section, text: escapeFrameContent(section.text) } : section;
}
