import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { HostCommand, HostReport } from './host-messages.js';

export interface Fleet {
  /** Sends a command to one replica. */
  tell(replica: number, command: HostCommand): void;
  /** The next report of `type` from `replica`. */
  next<Type extends HostReport['type']>(
    replica: number,
    type: Type,
  ): Promise<Extract<HostReport, { type: Type }>>;
  close(): Promise<void>;
}

/** `count` replica processes (replica-host.ts), each ready: pins loaded, Redis subscribed. */
export async function startFleet(count: number, args: readonly string[]): Promise<Fleet> {
  const waiting = new Map<string, ((report: HostReport) => void)[]>();
  const queued = new Map<string, HostReport[]>();
  const children: ChildProcess[] = Array.from({ length: count }, (_, index) => {
    const child = fork(join(import.meta.dirname, 'replica-host.ts'), [String(index), ...args], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (report: HostReport) => {
      const key = `${index}:${report.type}`;
      const resolve = waiting.get(key)?.shift();
      if (resolve) resolve(report);
      else queued.set(key, [...(queued.get(key) ?? []), report]);
    });
    return child;
  });
  const fleet: Fleet = {
    tell: (replica, command) => children[replica]?.send(command),
    next: (replica, type) =>
      new Promise((resolve, reject) => {
        const key = `${replica}:${type}`;
        const early = queued.get(key)?.shift();
        if (early) return resolve(early as never);
        const child = children[replica];
        const onExit = (code: number | null) => reject(new Error(`replica ${replica} exited (${code})`));
        child?.once('exit', onExit);
        waiting.set(key, [
          ...(waiting.get(key) ?? []),
          (report) => {
            child?.off('exit', onExit);
            resolve(report as never);
          },
        ]);
      }),
    close: async () => {
      await Promise.all(
        children.map(async (child, index) => {
          if (child.exitCode !== null) return;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          fleet.tell(index, { type: 'close' });
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
  await Promise.all(children.map((_, index) => fleet.next(index, 'ready')));
  return fleet;
}
