/**
 * Ends a stdio transport's child process (`pid` is null or absent for any other transport): the
 * SDKs (v1 and v2 alike) forget the child as they start closing, and give it 2 s after stdin ends
 * on an unref'd timer, so a host that exits right after close() would leave running a server that
 * never answered its opening request.
 */
export function endChildProcess(pid: unknown): void {
  if (typeof pid !== 'number') return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}
