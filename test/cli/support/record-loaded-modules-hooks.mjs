// The loader hooks of record-loaded-modules.mjs (they run on the loader's own thread).
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  const file = process.env.RECORD_LOADED_MODULES;
  if (file) appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
