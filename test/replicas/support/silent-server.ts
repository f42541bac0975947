import { createServer, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';

/** A TCP port on 127.0.0.1 that accepts connections and never answers: a hung database or cache. */
export async function startSilentServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}
