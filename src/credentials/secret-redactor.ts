import { redactedText, redactUrlUserinfo } from '../options/redact-url-userinfo.js';

export { redactedText } from '../options/redact-url-userinfo.js';

/**
 * Secrets at least this long are removed wherever they occur, as substrings. Shorter ones (a
 * 1–3 character env value or header) would blank out ordinary words if removed as substrings,
 * so they are removed only where they stand as a whole value: a whole string, or the value of a
 * `name: value`, `name=value`, `"name": "value"` pair or of `Bearer …` / `Basic …` — the shapes
 * of header, environment and JSON dumps, which is how a server or proxy echoes them back.
 */
export const minimumSubstringSecretLength = 4;
// Deep enough for any result (structured tool output included); cycles are handled by `seen`.
const maximumDepth = 64;

/** A redacted copy, and how many secret occurrences it no longer has. */
export interface Redacted<T> {
  readonly value: T;
  readonly count: number;
}

/**
 * Knows secret values (and the encodings they travel in) and removes them from text, errors and
 * results. Errors are copied, not mutated: the copy keeps its prototype, code and HTTP status, so
 * classifying it (RpcError, fetch failure, 404) works as before, and its whole `cause` chain is
 * redacted too.
 */
export class SecretRedactor {
  readonly #secrets = new Set<string>();
  readonly #shortSecrets = new Set<string>();
  /** Built on first use after a change: one pass over the text, whatever the number of secrets. */
  #compiled: CompiledSecrets | undefined;
  #compiledAt = -1;
  /** Bumped by every `add`: the compiled pattern is rebuilt on the next use. */
  #changes = 0;

  /** Adds a secret and the forms it is sent in: URL-encoded, and base64 for Basic auth pairs. */
  add(secret: string): void {
    if (secret.length === 0) return;
    this.#changes++;
    if (secret.length < minimumSubstringSecretLength) {
      this.#shortSecrets.add(secret);
      return;
    }
    for (const form of [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ x: secret }).toString().slice(2),
      Buffer.from(secret).toString('base64'),
    ]) {
      this.#secrets.add(form);
    }
  }

  /** `client_secret_basic` (RFC 6749 §2.3.1) sends base64 of the URL-encoded `id:secret` pair. */
  addBasicPair(user: string, password: string): void {
    this.add(password);
    this.add(Buffer.from(`${encodeURIComponent(user)}:${encodeURIComponent(password)}`).toString('base64'));
    this.add(Buffer.from(`${user}:${password}`).toString('base64'));
  }

  /** Secret forms known. */
  get size(): number {
    return this.#secrets.size + this.#shortSecrets.size;
  }

  redactText(text: string): string {
    return this.redactTextCounting(text).value;
  }

  /** `text` without any secret, and how many occurrences went. */
  redactTextCounting(text: string): Redacted<string> {
    const compiled = this.#compile();
    if (compiled === undefined) return { value: text, count: 0 };
    if (compiled.short.has(text)) return { value: redactedText, count: 1 };
    let count = 0;
    let result = text;
    if (compiled.substrings) {
      result = result.replace(compiled.substrings, () => {
        count++;
        return redactedText;
      });
    }
    if (compiled.wholeValues) {
      result = result.replace(compiled.wholeValues, (_match, before: string) => {
        count++;
        return `${before}${redactedText}`;
      });
    }
    return { value: count === 0 ? text : result, count };
  }

  /**
   * A copy of `error` with every secret removed from its message, stack, fields and causes, and
   * every URL's userinfo (`redactUrlUserinfo`): an error is shown, and the SDK and undici put the
   * URL they were given into theirs. The same error comes back when there was nothing to remove.
   */
  redactError<T>(error: T): T {
    return this.redactShownValue(error).value;
  }

  /**
   * `redactValue` for what is shown rather than given to the model (a status, an error): every
   * URL's userinfo goes too, whether or not it is a configured one.
   */
  redactShownValue<T>(value: T): Redacted<T> {
    const counter = { count: 0 };
    const redacted = this.#redact(value, 0, new WeakMap(), counter, (text) =>
      this.#redactShownText(text),
    ) as T;
    return { value: counter.count === 0 ? value : redacted, count: counter.count };
  }

  /**
   * A copy of a plain result (objects, arrays, strings) with every secret removed from every
   * string, and the number removed; `value` is the same object when there was nothing to remove.
   */
  redactValue<T>(value: T): Redacted<T> {
    if (this.size === 0) return { value, count: 0 };
    const counter = { count: 0 };
    const redacted = this.#redact(value, 0, new WeakMap(), counter, (text) =>
      this.redactTextCounting(text),
    ) as T;
    return { value: counter.count === 0 ? value : redacted, count: counter.count };
  }

  /** Every substring-form secret, longest first: for byte-level redaction. */
  substringSecrets(): readonly string[] {
    return [...this.#secrets].sort((a, b) => b.length - a.length);
  }

  // --- Internal helpers ---

  #compile(): CompiledSecrets | undefined {
    if (this.#compiledAt === this.#changes) return this.#compiled;
    const secrets = this.substringSecrets();
    const short = [...this.#shortSecrets].sort((a, b) => b.length - a.length);
    this.#compiledAt = this.#changes;
    this.#compiled =
      secrets.length === 0 && short.length === 0
        ? undefined
        : {
            // Longest first, so a secret that contains another is removed whole.
            ...(secrets.length > 0 && { substrings: new RegExp(secrets.map(escapeRegExp).join('|'), 'g') }),
            ...(short.length > 0 && {
              wholeValues: new RegExp(
                `((?:[:=]\\s*["']?)|(?:\\b(?:[Bb]earer|[Bb]asic)\\s+))(?:${short.map(escapeRegExp).join('|')})(?=$|["'\\s,;&}\\]])`,
                'g',
              ),
            }),
            short: new Set(short),
          };
    return this.#compiled;
  }

  #redactShownText(text: string): Redacted<string> {
    const secrets = this.redactTextCounting(text);
    const userinfo = redactUrlUserinfo(secrets.value);
    return { value: userinfo.value, count: secrets.count + userinfo.count };
  }

  #redact(
    value: unknown,
    depth: number,
    seen: WeakMap<object, unknown>,
    counter: { count: number },
    redactText: (text: string) => Redacted<string>,
  ): unknown {
    if (typeof value === 'string') {
      const { value: redacted, count } = redactText(value);
      counter.count += count;
      return redacted;
    }
    if (typeof value !== 'object' || value === null || depth > maximumDepth) return value;
    if (seen.has(value)) return seen.get(value);
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      for (const item of value) copy.push(this.#redact(item, depth + 1, seen, counter, redactText));
      return copy;
    }
    const prototype = Object.getPrototypeOf(value) as object | null;
    const plain = prototype === Object.prototype || prototype === null;
    if (!plain && !(value instanceof Error)) return value;
    const copy = Object.create(prototype) as Record<PropertyKey, unknown>;
    seen.set(value, copy);
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (!descriptor) continue;
      if ('value' in descriptor)
        descriptor.value = this.#redact(descriptor.value, depth + 1, seen, counter, redactText);
      else if (descriptor.get) {
        // An accessor (rare on errors) is read once and frozen into a redacted value.
        descriptor.value = this.#redact(descriptor.get.call(value), depth + 1, seen, counter, redactText);
        delete descriptor.get;
        delete descriptor.set;
      }
      Object.defineProperty(copy, key, descriptor);
    }
    return copy;
  }
}

// --- Module helpers ---

interface CompiledSecrets {
  /** Every secret of 4+ characters, in every form, longest first. */
  readonly substrings?: RegExp;
  /** Short secrets as the value of a pair or an auth scheme; group 1 is what precedes them. */
  readonly wholeValues?: RegExp;
  readonly short: ReadonlySet<string>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
