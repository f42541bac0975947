import type { ReadResourceResult } from '@modelcontextprotocol/client';
import type { ComposableAttachment } from '../budget/composable-attachment.js';
import type { ConvertedSection } from '../render/converted-section.js';
import { EscapedText } from '../render/escaped-text.js';
import type { ScopeKind } from '../types.js';
import { type ConvertedResource, convertContents } from './convert-contents.js';
import type { ConverterRegistry } from './converter-registry.js';
import { isUiResource } from './ui-resource.js';

/** Where an attachment came from, as far as conversion needs to know. */
export interface PrepareTarget {
  readonly scope: ScopeKind;
  readonly server: string;
  readonly uri: string;
  readonly maxTokens?: number;
  /** The listing's `annotations.lastModified`, for the frame's provenance. */
  readonly lastModified?: string;
  /** A skill's name and description (from its verified entry), for the frame. */
  readonly skillFrame?: { readonly name: string; readonly description: string };
}

/** A read as conversion takes it: contents, and what a byte cap cut (the registry's `CappedReadResult`). */
export interface ReadContents {
  readonly contents: ReadResourceResult['contents'];
  /** Occurrences of the server's credentials the registry removed from the contents. */
  readonly redactions?: number;
  readonly truncation?: {
    readonly maxBytes: number;
    readonly items: readonly {
      readonly uri: string;
      readonly mimeType?: string;
      readonly originalBytes: number;
      readonly keptBytes: number;
    }[];
  };
}

/** A read converted for framing: the conversion and its sections with text escaped. */
export interface Conversion {
  readonly converted: ConvertedResource;
  readonly sections: readonly ConvertedSection[];
}

/** Keeps conversions of unchanged content across turns (the derived cache). */
export interface ConversionMemo {
  conversionKey(sha256: string, converters: ConverterRegistry | undefined): string;
  conversion(key: string): Conversion | undefined;
  /** `probation`: a message attachment's, likely used once (see docs/caches.md). */
  keepConversion(key: string, conversion: Conversion, probation: boolean): void;
}

export interface Prepared {
  readonly converted: ConvertedResource;
  readonly composable: ComposableAttachment;
}

/**
 * Step 4, convert: a read's contents become escaped sections ready for the budget. Independent
 * of the turn (model, budget, message), so a cached read can be prepared once. Counting waits for
 * composeContext, which counts only as far as the turn's budget needs.
 */
export function prepareAttachment(
  attachment: PrepareTarget,
  result: ReadContents,
  options: {
    /** Default: the built-in converters. */
    readonly converters?: ConverterRegistry;
    /**
     * Share the conversion across turns under the content's sha256, as the content cache named
     * it (`hashContents` of exactly these contents: a cut read is not passed here).
     */
    readonly derived?: { readonly cache: ConversionMemo; readonly sha256: string };
  } = {},
): Prepared {
  const { converters, derived } = options;
  // A UI resource asked for is omitted whatever its items say (convertContents): its conversion
  // is not the one its content hash names, so it is neither shared nor kept.
  const uiAsked = isUiResource(attachment.uri, undefined);
  const key = derived && !uiAsked ? conversionKeyOf(result, derived, converters) : undefined;
  let conversion = key === undefined ? undefined : derived?.cache.conversion(key);
  if (!conversion) {
    const converted = withRedactionNote(
      convertContents(result.contents, converters, derived?.sha256, attachment.uri),
      result,
    );
    const sections = [...converted.sections, ...byteCapSections(result)].map(escapeSection);
    conversion = { converted, sections };
    if (key !== undefined) derived?.cache.keepConversion(key, conversion, attachment.scope === 'message');
  }
  const { converted, sections } = conversion;
  // Unchanged content prepared for the same attachment as before: the same object again, so
  // that a warm turn builds nothing per attachment and later steps can tell it by identity.
  const known = key === undefined ? undefined : preparedOf(conversion, attachment);
  if (known) return known;
  const composable: ComposableAttachment = {
    provenance: {
      scope: attachment.scope,
      server: attachment.server,
      uri: attachment.uri,
      mimeType: converted.mimeType,
      sha256: converted.sha256,
      ...(attachment.lastModified !== undefined && { lastModified: attachment.lastModified }),
      ...(attachment.skillFrame !== undefined && { skill: attachment.skillFrame }),
    },
    sections,
    ...(key !== undefined && { contentKey: key }),
    ...(attachment.maxTokens !== undefined && { capTokens: attachment.maxTokens }),
  };
  const prepared = { converted, composable };
  if (key !== undefined) keepPrepared(conversion, attachment, prepared);
  return prepared;
}

// --- Internal helpers ---

// The conversion key of a read, kept with the read while it lives (a cached read is the same
// object every turn): not a new string per attachment per turn.
const keysByRead = new WeakMap<
  ReadContents,
  {
    readonly cache: ConversionMemo;
    readonly converters: ConverterRegistry | undefined;
    readonly revision: number | undefined;
    readonly key: string;
  }
>();

function conversionKeyOf(
  result: ReadContents,
  derived: { readonly cache: ConversionMemo; readonly sha256: string },
  converters: ConverterRegistry | undefined,
): string {
  const kept = keysByRead.get(result);
  // A registry's key names its revision: a kept key holds only while that is unchanged.
  if (
    kept &&
    kept.cache === derived.cache &&
    kept.converters === converters &&
    kept.revision === converters?.revision
  )
    return kept.key;
  const key = derived.cache.conversionKey(derived.sha256, converters);
  keysByRead.set(result, { cache: derived.cache, converters, revision: converters?.revision, key });
  return key;
}

// What each conversion was prepared as, per attachment (a few: the same content can be pinned
// under several URIs or scopes). Held as long as the conversion is: the derived cache bounds both.
const preparedByConversion = new WeakMap<Conversion, { target: PrepareTarget; prepared: Prepared }[]>();
const preparedPerConversion = 8;

function preparedOf(conversion: Conversion, target: PrepareTarget): Prepared | undefined {
  const known = preparedByConversion.get(conversion);
  if (!known) return undefined;
  for (let index = 0; index < known.length; index++) {
    const kept = known[index];
    if (kept && sameTarget(kept.target, target)) return kept.prepared;
  }
  return undefined;
}

function keepPrepared(conversion: Conversion, target: PrepareTarget, prepared: Prepared): void {
  let known = preparedByConversion.get(conversion);
  if (!known) {
    known = [];
    preparedByConversion.set(conversion, known);
  }
  if (known.length >= preparedPerConversion) known.shift();
  // Only what sameTarget reads: the turn's own attachment object is not kept.
  const { scope, server, uri, maxTokens, lastModified, skillFrame } = target;
  known.push({ target: { scope, server, uri, maxTokens, lastModified, skillFrame }, prepared });
}

/** Whether two targets frame the same way: everything prepareAttachment reads of one. */
function sameTarget(a: PrepareTarget, b: PrepareTarget): boolean {
  return (
    a.scope === b.scope &&
    a.server === b.server &&
    a.uri === b.uri &&
    a.maxTokens === b.maxTokens &&
    a.lastModified === b.lastModified &&
    a.skillFrame?.name === b.skillFrame?.name &&
    a.skillFrame?.description === b.skillFrame?.description
  );
}

/** A redaction is reported in the trace (as a note), never silent. */
function withRedactionNote(converted: ConvertedResource, result: ReadContents): ConvertedResource {
  const count = result.redactions ?? 0;
  if (count === 0) return converted;
  const note = `${count} occurrence(s) of this server's credentials removed from its content (shown as [redacted])`;
  return { ...converted, notes: [...converted.notes, note] };
}

/** What the read's byte cap cut, as visible notices: a cut is never silent. */
function byteCapSections(result: ReadContents): ConvertedSection[] {
  const truncation = result.truncation;
  if (!truncation) return [];
  return truncation.items.map((item) => ({
    kind: 'omitted',
    uri: item.uri,
    mimeType: item.mimeType ?? 'application/octet-stream',
    bytes: item.originalBytes - item.keptBytes,
    reason: `the read's byte cap (${truncation.maxBytes} bytes) kept ${item.keptBytes} of ${item.originalBytes} bytes`,
  }));
}

/**
 * A text section escaped for framing, lazily: a turn that shows a few thousand tokens of a large
 * body escapes about that much of it (`escaped.prefix`); reading `text` escapes the whole.
 */
function escapeSection(section: ConvertedSection): ConvertedSection {
  if (section.kind !== 'text') return section;
  const escaped = new EscapedText(section.text);
  return {
    ...section,
    escaped,
    get text() {
      return escaped.text;
    },
  };
}
