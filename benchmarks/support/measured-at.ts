import { execFileSync } from 'node:child_process';

export interface MeasuredAt {
  /** `git rev-parse HEAD`, or `unknown` outside a git checkout. */
  readonly commit: string;
  /** True when the code measured (src, benchmarks, fixtures, dependencies) differs from that commit. */
  readonly dirty: boolean;
}

/** The commit the code under measurement is at, and whether the working tree differs from it. */
export function measuredAt(root: string): MeasuredAt {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', 'HEAD');
    // What is measured: the library, the benchmarks, the fixtures and the dependencies (not the
    // results a run writes, nor a node_modules link in a scratch worktree).
    const changes = git(
      'status',
      '--porcelain',
      '--',
      'src',
      'benchmarks',
      'fixtures',
      'package.json',
      'package-lock.json',
      ':!benchmarks/results',
    );
    return { commit, dirty: changes.length > 0 };
  } catch {
    return { commit: 'unknown', dirty: true };
  }
}
