import type { CliContext } from './cli-context.js';
import type { CliOptionName, CliOptionValues } from './cli-options.js';

/** What a command does, given what it works with; returns the exit code. */
export type CliCommandRun = (
  context: CliContext,
  positionals: readonly string[],
  values: CliOptionValues,
) => Promise<number>;

/**
 * One command of `mcp-context`: its words, its usage line and the options it takes, declared
 * apart from what it does, which `load()` imports only when the command runs.
 */
export interface CliCommand {
  /** The command's words, e.g. `pin add`. */
  readonly name: string;
  /** Arguments and options after the name, for the usage text. */
  readonly arguments: string;
  readonly summary: string;
  /** Options beyond `--config`, `--store`, `--json`, `--help`. */
  readonly options: readonly CliOptionName[];
  /** Imports the command's module (and the part of the library it uses). */
  load(): Promise<CliCommandRun>;
}
