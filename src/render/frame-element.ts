import { neutralizeText } from './neutralize-text.js';

/**
 * The element names of our frames: resources (`mcp-resource`, whose spelling also covers
 * `mcp-resource-link`) and server instructions. Text framed in one may spell none of them:
 * content could otherwise close its own frame or open one of another kind with made-up
 * provenance (a SKILL.md body forging `<mcp-server-instructions server="host">`).
 */
export const frameTags = ['mcp-resource', 'mcp-server-instructions'] as const;

/**
 * The one rule for framed text (bodies of every frame, and through escapeUntrustedText every
 * server's text): every spelling of every tag of ours escaped (see escapeFrameTags). Attribute
 * values (provenance, a skill's name and description) are escaped further: no `<` at all.
 */
export function escapeOurFrameTags(text: string): string {
  let escaped = text;
  for (const tag of frameTags) escaped = escapeFrameTags(escaped, tag);
  return escaped;
}

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
  const { open, body: closed, close } = frameElementParts(tag, attributes, body);
  return `${open}${closed}${close}`;
}

/**
 * frameElement's text in its three parts, `open + body + close`: the open tag (with the newline
 * after it), the body as framed (escaped once more), and the close tag. A caller that counts a
 * frame part by part (the budget) reads the body's place off it instead of searching the text.
 */
export function frameElementParts(
  tag: string,
  attributes: readonly (readonly [string, string])[],
  body: string,
): { readonly open: string; readonly body: string; readonly close: string } {
  const rendered = attributes.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');
  const escaped = escapeOurFrameTags(body);
  // A tag not of ours (a host's own frame) is escaped in its body too.
  const closed = (frameTags as readonly string[]).includes(tag) ? escaped : escapeFrameTags(escaped, tag);
  return { open: `<${tag}${rendered}>\n`, body: closed, close: `\n</${tag}>\n\n` };
}

/** `<tag name="value" …/>`, attribute values escaped: a reference that carries no body. */
export function emptyElement(tag: string, attributes: readonly (readonly [string, string])[]): string {
  return `<${tag}${attributes.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('')}/>`;
}

/**
 * Neutralises every spelling of `</tag` and `<tag` (any case, spaces around the slash) so framed
 * content can neither end its own frame and speak as the host, nor open a frame of its own
 * inside it with provenance it made up (`<mcp-resource server="host" …>`). `tag` is a name of
 * ours (letters and hyphens), written into the result as is.
 *
 * Every match starts with `<`: a body without one costs one `indexOf` and comes back as the same
 * string, and the pattern is tried only at a `<` that could open a tag. Markup, dense with `<`
 * (`<b>`, `</p>`), goes to one regular-expression scan from where it was noticed, cheaper there
 * than a search per `<`. The result is that of `text.replace(/<(\s*)(\/?)(\s*)tag/gi, '&lt;$1$2$3tag')`.
 */
export function escapeFrameTags(text: string, tag: string): string {
  let at = text.indexOf('<');
  if (at === -1) return text;
  const patterns = tagPatternsOf(tag);
  const first = tag.charCodeAt(0) | 0x20;
  const start = at;
  let cursor = 0;
  let escaped = '';
  let tried = 0;
  while (at !== -1) {
    if (++tried > denseAfter && at - start < tried * denseSpacing) {
      // From here on, one scan: the same matches a replace from the start would find past `at`.
      patterns.scan.lastIndex = at;
      for (let match = patterns.scan.exec(text); match; match = patterns.scan.exec(text)) {
        escaped += `${text.slice(cursor, match.index)}&lt;${match[1]}${match[2]}${match[3]}${tag}`;
        cursor = match.index + match[0].length;
      }
      break;
    }
    patterns.at.lastIndex = at;
    const match = mayOpen(text, at, first) ? patterns.at.exec(text) : null;
    if (match) {
      escaped += `${text.slice(cursor, at)}&lt;${match[1]}${match[2]}${match[3]}${tag}`;
      cursor = at + match[0].length;
      at = text.indexOf('<', cursor);
    } else {
      at = text.indexOf('<', at + 1);
    }
  }
  return cursor === 0 ? text : escaped + text.slice(cursor);
}

// --- Internal helpers ---

// After this many `<` at most this far apart on average, the rest of the text is scanned once.
const denseAfter = 16;
const denseSpacing = 64;

// Per tag: sticky, tried at one `<`; global, for the scan through markup.
const tagPatterns = new Map<string, { readonly at: RegExp; readonly scan: RegExp }>();

function tagPatternsOf(tag: string): { readonly at: RegExp; readonly scan: RegExp } {
  let patterns = tagPatterns.get(tag);
  if (!patterns) {
    const source = `<(\\s*)(/?)(\\s*)${tag.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}`;
    patterns = { at: new RegExp(source, 'iy'), scan: new RegExp(source, 'gi') };
    tagPatterns.set(tag, patterns);
  }
  return patterns;
}

/**
 * Whether a tag can start at the `<` at `at`: the next character, or the one after a `/`, is
 * whitespace (anything at or below a space, or beyond ASCII: `\s` has non-ASCII members) or
 * the tag's first letter in either case (`i` without `u` folds only ASCII letters to ASCII).
 */
function mayOpen(text: string, at: number, first: number): boolean {
  let code = text.charCodeAt(at + 1);
  if (code === 0x2f) code = text.charCodeAt(at + 2);
  return code <= 0x20 || code >= 0x80 || (code | 0x20) === first;
}

// What an attribute value escapes. Provenance seldom holds any of them, and each turn frames every
// rendering it makes (a `relevant` turn: every attachment), so a value without one is returned
// as it is rather than through four replaces.
const attributeSpecial = /[&"<>]/;

function escapeAttribute(value: string): string {
  const neutral = neutralizeText(value);
  if (!attributeSpecial.test(neutral)) return neutral;
  return neutral.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
