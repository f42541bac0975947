import type { Prompt } from '@modelcontextprotocol/client';
import { ContextError } from '../errors.js';
import { cacheHintsOf } from './cache-hints-of.js';

/**
 * The prompts each server lists, kept until the list changes or the session does, or (a
 * 2026-07-28 listing) until its own `ttlMs` has passed, so that `getPrompt` can check required
 * arguments without listing on every call.
 */
export class PromptCatalog {
  readonly #listings = new Map<string, { readonly prompts: Promise<Prompt[]>; expiresAt: number }>();
  readonly #list: (server: string, principal: string | undefined) => Promise<{ prompts: Prompt[] }>;

  /** Per-user servers list per principal: `list` is called with the principal the call is for. */
  constructor(list: (server: string, principal: string | undefined) => Promise<{ prompts: Prompt[] }>) {
    this.#list = list;
  }

  /** Forgets one principal's listing of a server, or (no principal) every listing of it. */
  forget(server: string, principal?: string): void {
    if (principal !== undefined) {
      this.#listings.delete(keyOf(server, principal));
      return;
    }
    for (const key of this.#listings.keys()) {
      if (key === server || key.startsWith(`${server}\u0000`)) this.#listings.delete(key);
    }
  }

  /**
   * Throws PROMPT_ARGUMENT_MISSING naming the first required argument that is absent or
   * empty. A prompt the listing does not know, or a listing that fails, is left to the
   * server to judge: its answer (or error) is the truth, not our guess.
   */
  async checkArguments(
    server: string,
    name: string,
    args: Readonly<Record<string, string>>,
    principal?: string,
  ): Promise<void> {
    const prompt = (await this.#prompts(server, principal)).find((candidate) => candidate.name === name);
    for (const argument of prompt?.arguments ?? []) {
      if (!argument.required) continue;
      const value = args[argument.name];
      if (value === undefined || value === '') {
        throw new ContextError(
          'PROMPT_ARGUMENT_MISSING',
          `prompt "${name}" on server "${server}" requires the argument "${argument.name}"`,
          { server, field: `arguments.${argument.name}`, value: name },
        );
      }
    }
  }

  // --- Internal helpers ---

  async #prompts(server: string, principal: string | undefined): Promise<Prompt[]> {
    const key = keyOf(server, principal);
    const kept = this.#listings.get(key);
    if (kept && Date.now() < kept.expiresAt) return kept.prompts;
    // Until it answers, a listing in flight is the one every caller waits on.
    const listing = { prompts: Promise.resolve<Prompt[]>([]), expiresAt: Number.POSITIVE_INFINITY };
    listing.prompts = this.#list(server, principal).then(
      (result) => {
        const hints = cacheHintsOf(result);
        if (hints) listing.expiresAt = Date.now() + hints.ttlMs;
        return result.prompts;
      },
      (error: unknown) => {
        if (this.#listings.get(key) === listing) this.#listings.delete(key);
        if (ContextError.isInstance(error) && error.code === 'ABORTED') throw error;
        return [];
      },
    );
    this.#listings.set(key, listing);
    return listing.prompts;
  }
}

function keyOf(server: string, principal: string | undefined): string {
  return principal === undefined ? server : `${server}\u0000${principal}`;
}
