/** The most of a stdio server's stderr kept for a failed connect's message. */
const maxTailBytes = 1024;

/**
 * The last kilobyte a stdio server wrote to stderr during one connect attempt: a server that
 * exits before it answers (a missing key, a bad path) usually says why there, and the host's
 * CONNECT_FAILED can then say it too. Reading it also drains the pipe (see drainStderr). The
 * text is the server's, so the connection redacts it before it goes anywhere.
 */
export class StderrTail {
  #kept: Buffer = Buffer.alloc(0);

  /** Reads `stderr` (a stdio transport's piped stream) to its end, keeping its last bytes. */
  follow(stderr: unknown): void {
    const stream = stderr as {
      on?: (event: 'data', listener: (chunk: Buffer | string) => void) => void;
    } | null;
    stream?.on?.('data', (chunk) => this.#append(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  }

  /** The kept bytes as text ('' when none); a cut inside a character shows as U+FFFD. */
  text(): string {
    return this.#kept.toString('utf8');
  }

  #append(chunk: Buffer): void {
    const joined = this.#kept.length === 0 ? chunk : Buffer.concat([this.#kept, chunk]);
    this.#kept =
      joined.length > maxTailBytes ? Buffer.from(joined.subarray(joined.length - maxTailBytes)) : joined;
  }
}
