// Preloaded into the benchmark's `mcp-context serve` child (`node --expose-gc --import tsx
// --import <this file> src/cli/main.ts serve …`, with an IPC channel): answers `{ kind: 'memory' }`
// with the process's memory after full GCs, so the benchmark reads the service's own heap, and
// `{ kind: 'cpu' }` with its CPU time so far. Not part of the service: nothing of it loads outside
// the benchmark.

const rounds = 3;

process.on('message', (message: { kind?: string }) => {
  if (message?.kind === 'cpu') process.send?.({ kind: 'cpu', usage: process.cpuUsage() });
  if (message?.kind !== 'memory') return;
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let round = 0; round < rounds; round++) gc?.();
  process.send?.({ kind: 'memory', usage: process.memoryUsage(), gcExposed: gc !== undefined });
});
// The channel must not keep the process alive once serve has drained and returned.
process.channel?.unref();
