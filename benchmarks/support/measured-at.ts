import { execFileSync } from 'node:child_process';

export interface MeasuredAt {
  /** `git rev-parse HEAD`, or `unknown` outside a git checkout. */
  readonly commit: string;
  /** True when the code measured differs from that commit (uncommitted changes outside results). */
  readonly dirty: boolean;
}

/** The commit the code under measurement is at, and whether the working tree differs from it. */
export function measuredAt(root: string): MeasuredAt {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', 'HEAD');
    // Results and the README are what a run writes: they do not make the measured code differ.
    const changes = git('status', '--porcelain', '--', '.', ':!benchmarks/results', ':!README.md');
    return { commit, dirty: changes.length > 0 };
  } catch {
    return { commit: 'unknown', dirty: true };
  }
}
