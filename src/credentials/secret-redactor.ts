/** What a secret turns into wherever it would have been shown. */
export const redactedText = '[redacted]';

// Shorter values would blank out ordinary words; no real credential is this short.
const minimumSecretLength = 4;
const maximumDepth = 8;

/**
 * Knows one server's secret values (and the encodings they travel in) and removes them from
 * text and errors. Errors are copied, not mutated: the copy keeps its prototype, code and HTTP
 * status, so classifying it (McpError, fetch failure, 404) works as before, and its whole
 * `cause` chain is redacted too.
 */
export class SecretRedactor {
  readonly #secrets = new Set<string>();

  /** Adds a secret and the forms it is sent in: URL-encoded, and base64 for Basic auth pairs. */
  add(secret: string): void {
    if (secret.length < minimumSecretLength) return;
    this.#secrets.add(secret);
    this.#secrets.add(encodeURIComponent(secret));
    this.#secrets.add(new URLSearchParams({ x: secret }).toString().slice(2));
    this.#secrets.add(Buffer.from(secret).toString('base64'));
  }

  /** `client_secret_basic` (RFC 6749 §2.3.1) sends base64 of the URL-encoded `id:secret` pair. */
  addBasicPair(user: string, password: string): void {
    this.add(password);
    this.add(Buffer.from(`${encodeURIComponent(user)}:${encodeURIComponent(password)}`).toString('base64'));
    this.add(Buffer.from(`${user}:${password}`).toString('base64'));
  }

  get size(): number {
    return this.#secrets.size;
  }

  redactText(text: string): string {
    let result = text;
    // Longest first, so a secret that contains another is removed whole.
    for (const secret of [...this.#secrets].sort((a, b) => b.length - a.length)) {
      if (secret.length >= minimumSecretLength) result = result.split(secret).join(redactedText);
    }
    return result;
  }

  /** A copy of `error` with every secret removed from its message, stack, fields and causes. */
  redactError<T>(error: T): T {
    if (this.#secrets.size === 0) return error;
    return this.#redact(error, 0, new WeakMap()) as T;
  }

  // --- Internal helpers ---

  #redact(value: unknown, depth: number, seen: WeakMap<object, unknown>): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (typeof value !== 'object' || value === null || depth > maximumDepth) return value;
    if (seen.has(value)) return seen.get(value);
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      for (const item of value) copy.push(this.#redact(item, depth + 1, seen));
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
      if ('value' in descriptor) descriptor.value = this.#redact(descriptor.value, depth + 1, seen);
      else if (descriptor.get) {
        // An accessor (rare on errors) is read once and frozen into a redacted value.
        descriptor.value = this.#redact(descriptor.get.call(value), depth + 1, seen);
        delete descriptor.get;
        delete descriptor.set;
      }
      Object.defineProperty(copy, key, descriptor);
    }
    return copy;
  }
}
