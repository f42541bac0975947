import type { Prompt } from '@modelcontextprotocol/sdk/types.js';
import { ContextError } from '../errors.js';

/**
 * The prompts each server lists, kept until the list changes or the session does, so that
 * `getPrompt` can check required arguments without listing on every call.
 */
export class PromptCatalog {
  readonly #listings = new Map<string, Promise<Prompt[]>>();
  readonly #list: (server: string) => Promise<{ prompts: Prompt[] }>;

  constructor(list: (server: string) => Promise<{ prompts: Prompt[] }>) {
    this.#list = list;
  }

  forget(server: string): void {
    this.#listings.delete(server);
  }

  /**
   * Throws PROMPT_ARGUMENT_MISSING naming the first required argument that is absent or
   * empty. A prompt the listing does not know, or a listing that fails, is left to the
   * server to judge: its answer (or error) is the truth, not our guess.
   */
  async checkArguments(server: string, name: string, args: Readonly<Record<string, string>>): Promise<void> {
    const prompt = (await this.#prompts(server)).find((candidate) => candidate.name === name);
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

  async #prompts(server: string): Promise<Prompt[]> {
    let listing = this.#listings.get(server);
    if (!listing) {
      listing = this.#list(server).then(
        (result) => result.prompts,
        (error: unknown) => {
          this.#listings.delete(server);
          if (ContextError.isInstance(error) && error.code === 'ABORTED') throw error;
          return [];
        },
      );
      this.#listings.set(server, listing);
    }
    return listing;
  }
}
