import type { CliContext } from './cli-context.js';
import type { CliOptionName, CliOptionValues } from './cli-options.js';

/** One command of `mcp-context`: its words, its usage line, the options it takes, and what it does. */
export interface CliCommand {
  /** The command's words, e.g. `pin add`. */
  readonly name: string;
  /** Arguments and options after the name, for the usage text. */
  readonly arguments: string;
  readonly summary: string;
  /** Options beyond `--config`, `--store`, `--json`, `--help`. */
  readonly options: readonly CliOptionName[];
  /** Returns the exit code. */
  run(context: CliContext, positionals: readonly string[], values: CliOptionValues): Promise<number>;
}
