import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ContextError } from '../errors.js';

/** What hosts run to get the SQLite pin store (better-sqlite3 is an optional peer dependency). */
export const betterSqlite3InstallCommand = 'npm install better-sqlite3@^12';

let loaded: typeof BetterSqlite3 | undefined;

/**
 * better-sqlite3, loaded on first use. It is an optional peer: it compiles a native module,
 * and hosts that keep pins elsewhere (memory, PostgreSQL) should install without a compiler.
 * Its absence is DEPENDENCY_MISSING naming the install command, not a bare module-not-found.
 */
export function loadBetterSqlite3(): typeof BetterSqlite3 {
  if (loaded) return loaded;
  try {
    // better-sqlite3 is CommonJS: require keeps the store's constructor synchronous.
    loaded = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    return loaded;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason =
      code === 'MODULE_NOT_FOUND'
        ? 'it is not installed'
        : `it failed to load: ${error instanceof Error ? error.message : String(error)}`;
    throw new ContextError(
      'DEPENDENCY_MISSING',
      `the SQLite pin store needs better-sqlite3, an optional peer dependency, and ${reason}; run: ${betterSqlite3InstallCommand}`,
      { value: 'better-sqlite3' },
      error,
    );
  }
}
