import type { MediaPart, ModelCapabilities, OmittedContent } from '../types.js';
import type { ConvertedSection } from './converted-section.js';
import type { EscapedText } from './escaped-text.js';
import { escapeFrameContent, escapeUntrustedText } from './frame-resource.js';

/** One attachment's content as this turn's model will see it. */
export interface AssembledBody {
  /** Escaped text to frame: text sections, and a line naming each media item. */
  readonly body: string;
  /**
   * When the body is one text section escaped lazily: its escaping, which gives prefixes of
   * `body` without escaping the rest (`body` itself is escaped when first read).
   */
  readonly escaped?: EscapedText;
  /** Leading characters every cut keeps (a single section's pinned lines). */
  readonly pinnedChars: number;
  /** Media parts the model accepts, each with the line in `body` that names it. */
  readonly parts: readonly { readonly part: MediaPart; readonly line: string }[];
  /** Items the model cannot be shown: binary, invalid UTF-8, media it does not accept. */
  readonly omittedContents: readonly OmittedContent[];
  /** True when anything in it is text or a part the model takes. */
  readonly injectable: boolean;
}

const capabilityOf = { image: 'images', audio: 'audio', document: 'pdf' } as const;
const nounOf = { image: 'images', audio: 'audio', document: 'PDF documents' } as const;

/**
 * Joins converted sections (text already escaped) into one body for a model: media go in as
 * parts when the model accepts them, otherwise as a placeholder naming type and size. A read
 * with several items gets a header line per item.
 */
export function assembleBody(
  sections: readonly ConvertedSection[],
  model: ModelCapabilities = {},
): AssembledBody {
  const [only] = sections;
  if (sections.length === 1 && only?.kind === 'text' && only.escaped)
    return lazyBody(only.escaped, only.pinnedLines);
  const several = sections.length > 1;
  const pieces: string[] = [];
  const parts: { part: MediaPart; line: string }[] = [];
  const omittedContents: OmittedContent[] = [];
  let injectable = false;
  let pinnedChars = 0;
  for (const section of sections) {
    const header = several ? escapeUntrustedText(`--- ${section.uri} (${section.mimeType}) ---\n`) : '';
    if (section.kind === 'text') {
      injectable = true;
      if (!several && section.pinnedLines) pinnedChars = pinnedLength(section.text, section.pinnedLines);
      pieces.push(header + section.text);
    } else if (section.kind === 'media' && model[capabilityOf[section.mediaKind]] === true) {
      injectable = true;
      const line = escapeUntrustedText(
        `[${section.mediaKind} ${section.uri} (${section.mimeType}, ${section.bytes} bytes) follows this frame as a ${section.mediaKind} part]`,
      );
      const { uri, mimeType, bytes, data, mediaKind } = section;
      parts.push({ part: { kind: mediaKind, uri, mimeType, data, bytes }, line });
      pieces.push(header + line);
    } else {
      const reason =
        section.kind === 'media' ? `the model does not accept ${nounOf[section.mediaKind]}` : section.reason;
      omittedContents.push({ uri: section.uri, mimeType: section.mimeType, bytes: section.bytes, reason });
      pieces.push(
        header +
          escapeUntrustedText(
            `[content not shown: ${section.uri} is ${section.mimeType}, ${section.bytes} bytes; ${reason}]`,
          ),
      );
    }
  }
  // Escaped sections can still meet at a joint ("<" + "\n" + "/mcp-resource"): escape the whole.
  const body = several ? escapeFrameContent(pieces.join('\n')) : (pieces[0] ?? '');
  return { body, pinnedChars, parts, omittedContents, injectable };
}

// --- Internal helpers ---

/** One lazily escaped text section as the body: nothing escaped until the budget reads it. */
function lazyBody(escaped: EscapedText, pinnedLines: number | undefined): AssembledBody {
  // Escaping never adds or removes a line end: the pinned lines' raw length covers them escaped.
  const pinnedRaw = pinnedLines ? pinnedLength(escaped.raw, pinnedLines) : 0;
  const pinnedChars = pinnedRaw > 0 ? pinnedLength(escaped.prefix(pinnedRaw).text, pinnedLines ?? 0) : 0;
  return {
    get body() {
      return escaped.text;
    },
    escaped,
    pinnedChars,
    parts: [],
    omittedContents: [],
    injectable: true,
  };
}

function pinnedLength(text: string, lines: number): number {
  let end = 0;
  for (let line = 0; line < lines; line++) {
    const newline = text.indexOf('\n', end);
    if (newline === -1) return 0;
    end = newline + 1;
  }
  return end;
}
