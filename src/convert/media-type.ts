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
 * not a media type, so callers compare parsed essences and never substrings.
 */
export function parseMediaType(value: string | undefined): MediaType | undefined {
  if (!value) return undefined;
  const [head = '', ...parameterParts] = value.split(';');
  const [type = '', subtype = '', ...rest] = head.trim().toLowerCase().split('/');
  if (rest.length > 0 || !tokenPattern.test(type) || !tokenPattern.test(subtype)) return undefined;
  const parameters: Record<string, string> = {};
  for (const part of parameterParts) {
    const separator = part.indexOf('=');
    if (separator <= 0) continue;
    const name = part.slice(0, separator).trim().toLowerCase();
    const raw = part.slice(separator + 1).trim();
    parameters[name] = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  }
  const plus = subtype.lastIndexOf('+');
  return {
    essence: `${type}/${subtype}`,
    type,
    subtype,
    ...(plus > 0 && { suffix: subtype.slice(plus + 1) }),
    parameters,
  };
}
