import { neutralizeText } from './neutralize-text.js';

const tagPatterns = new Map<string, RegExp>();

/**
 * `<tag name="value" …>\nbody\n</tag>\n\n`, attribute values escaped and neutralized. The body
 * should already be escaped (so counts made before framing hold); it is escaped once more here,
 * which changes nothing in escaped text, so that no caller can build a frame its content closes.
 * Every frame ends ">\n\n" and the next one starts with "<": the tokenizer always splits there,
 * so frames count independently.
 */
export function frameElement(
  tag: string,
  attributes: readonly (readonly [string, string])[],
  body: string,
): string {
  const rendered = attributes.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');
  return `<${tag}${rendered}>\n${escapeFrameTags(body, tag)}\n</${tag}>\n\n`;
}

/** `<tag name="value" …/>`, attribute values escaped: a reference that carries no body. */
export function emptyElement(tag: string, attributes: readonly (readonly [string, string])[]): string {
  return `<${tag}${attributes.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('')}/>`;
}

/**
 * Neutralises every spelling of `</tag` and `<tag` (any case, spaces around the slash) so framed
 * content can neither end its own frame and speak as the host, nor open a frame of its own
 * inside it with provenance it made up (`<mcp-resource server="host" …>`).
 */
export function escapeFrameTags(text: string, tag: string): string {
  let pattern = tagPatterns.get(tag);
  if (!pattern) {
    pattern = new RegExp(`<(\\s*)(/?)(\\s*)${tag.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}`, 'gi');
    tagPatterns.set(tag, pattern);
  }
  return text.replace(pattern, `&lt;$1$2$3${tag}`);
}

// --- Internal helpers ---

function escapeAttribute(value: string): string {
  return neutralizeText(value)
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
