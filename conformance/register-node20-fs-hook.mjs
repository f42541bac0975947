import { register } from 'node:module';

if (!('globSync' in (await import('node:fs')))) register('./node20-fs-hook.mjs', import.meta.url);
