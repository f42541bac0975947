/**
 * Each server's identity once known, or its resolution in flight: resolved at most once per
 * server unless it fails (then asked again next time). See `McpServerRegistry.identityOf`.
 */
export class KnownIdentities {
  readonly #identities = new Map<string, string | Promise<string>>();
  readonly #resolve: (server: string) => string | Promise<string>;

  constructor(resolve: (server: string) => string | Promise<string>) {
    this.#resolve = resolve;
  }

  of(server: string): string | Promise<string> {
    const known = this.#identities.get(server);
    if (known !== undefined) return known;
    let identity: string | Promise<string>;
    try {
      identity = this.#resolve(server);
    } catch (error) {
      return Promise.reject(error);
    }
    if (typeof identity === 'string') {
      this.#identities.set(server, identity);
      return identity;
    }
    const resolving = identity.then(
      (resolved) => {
        this.#identities.set(server, resolved);
        return resolved;
      },
      (error: unknown) => {
        this.#identities.delete(server);
        throw error;
      },
    );
    this.#identities.set(server, resolving);
    return resolving;
  }
}
