/** A one-line progress report on stderr, rewritten in place; silent unless stderr is a terminal. */
export interface Progress {
  update(text: string): void;
  done(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update() {}, done() {} };
  let shown = false;
  return {
    update(text) {
      shown = true;
      stream.write(`\r\u001b[K${text}`);
    },
    done() {
      if (shown) stream.write('\r\u001b[K');
      shown = false;
    },
  };
}
