export interface MediaType {
  /** `type/subtype`, lower-cased, without parameters. */
  readonly essence: string;
  readonly type: string;
  readonly subtype: string;
  /** The structured syntax suffix (RFC 6839), e.g. `json` for `application/ld+json`. */
  readonly suffix?: string;
  readonly parameters: Readonly<Record<string, string>>;
}

const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Parses `type/subtype; name=value` (RFC 9110 §8.3.1). Returns undefined for anything that is
 * not a media type, so callers compare parsed essences and never substrings. A parameter value
 * is a token or a quoted-string, which may hold `;` and `\"` (§5.6.4); a parameter that is not
 * `name=value` is skipped, as before, and does not make the type unparsable.
 */
export function parseMediaType(value: string | undefined): MediaType | undefined {
  if (!value) return undefined;
  const headEnd = value.indexOf(';');
  const head = headEnd === -1 ? value : value.slice(0, headEnd);
  const [type = '', subtype = '', ...rest] = head.trim().toLowerCase().split('/');
  if (rest.length > 0 || !tokenPattern.test(type) || !tokenPattern.test(subtype)) return undefined;
  const plus = subtype.lastIndexOf('+');
  return {
    essence: `${type}/${subtype}`,
    type,
    subtype,
    ...(plus > 0 && { suffix: subtype.slice(plus + 1) }),
    // fromEntries defines own properties: a parameter named `__proto__` is kept, not swallowed.
    parameters: Object.fromEntries(headEnd === -1 ? [] : parseParameters(value, headEnd)),
  };
}

// --- Internal helpers ---

/** `; name=value` pairs from `start` (a `;`), later names winning, as an object assignment would. */
function parseParameters(text: string, start: number): [string, string][] {
  const parameters = new Map<string, string>();
  let position = start;
  while (position < text.length) {
    // At a `;`: the name runs to `=` (or to the next `;`: no value, skipped).
    const nameEnd = indexOfEither(text, '=', ';', position + 1);
    if (nameEnd === -1 || text[nameEnd] === ';') {
      position = nameEnd === -1 ? text.length : nameEnd;
      continue;
    }
    const name = text
      .slice(position + 1, nameEnd)
      .trim()
      .toLowerCase();
    const { value, end } = readParameterValue(text, nameEnd + 1);
    if (name !== '') parameters.set(name, value);
    position = end;
  }
  return [...parameters];
}

/** A quoted-string (`\` escapes the next character) or everything up to the next `;`, trimmed. */
function readParameterValue(text: string, start: number): { value: string; end: number } {
  let position = start;
  while (text[position] === ' ' || text[position] === '\t') position++;
  if (text[position] === '"') {
    let value = '';
    for (let index = position + 1; index < text.length; index++) {
      const character = text[index];
      if (character === '\\' && index + 1 < text.length) {
        value += text[++index];
        continue;
      }
      if (character === '"') {
        const next = text.indexOf(';', index + 1);
        return { value, end: next === -1 ? text.length : next };
      }
      value += character;
    }
    // Never closed: the rest is the value, as a lenient reader takes it.
    return { value, end: text.length };
  }
  const end = text.indexOf(';', position);
  return {
    value: text.slice(start, end === -1 ? text.length : end).trim(),
    end: end === -1 ? text.length : end,
  };
}

function indexOfEither(text: string, first: string, second: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    if (text[index] === first || text[index] === second) return index;
  }
  return -1;
}
