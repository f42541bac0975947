// Run as a separate process: `node --import tsx pin-from-postgres-process.ts <url> <schema> <pipeline> <count> <uri-prefix>`.
// Pins `count` targets (or the same one `count` times when the prefix ends in "="), then prints the ids as JSON.
import { PostgresAttachmentStore } from '../../../src/postgres.js';

const [connectionString = '', schema = '', pipelineId = '', count = '1', prefix = ''] = process.argv.slice(2);
const store = await PostgresAttachmentStore.open({ connectionString, schema });
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
