// Run as a separate process: `node --import tsx pin-from-process.ts <store> <pipeline> <count> <uri-prefix> [wait]`.
// Pins `count` targets (or the same one `count` times when the prefix ends in "="), then prints the ids as JSON.
// With `wait`: prints "ready" once the store is open, waits for a line on stdin, prints "pinning"
// and only then pins, so a test can start several processes' writes at one moment.
import { createInterface } from 'node:readline';
import { SqliteAttachmentStore } from '../../../src/sqlite.js';

const [path = '', pipelineId = '', count = '1', prefix = '', mode = ''] = process.argv.slice(2);
const store = new SqliteAttachmentStore(path);
if (mode === 'wait') {
  process.stderr.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  // stderr is a pipe: written synchronously on Linux, so the test sees it before the first pin.
  process.stderr.write('pinning\n');
}
const ids: string[] = [];
for (let index = 0; index < Number(count); index += 1) {
  const uri = prefix.endsWith('=') ? prefix.slice(0, -1) : `${prefix}${index}`;
  const pin = await store.pin({
    scope: { pipelineId },
    server: 'gitnexus',
    uri,
    priority: process.pid % 100,
  });
  ids.push(pin.id);
}
await store.close();
process.stdout.write(JSON.stringify(ids));
