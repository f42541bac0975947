// `node --import ./record-loaded-modules.mjs …`: every module the process loads (ESM and CommonJS
// required from it) is appended, one URL a line, to the file named by RECORD_LOADED_MODULES.
import { register } from 'node:module';

register('./record-loaded-modules-hooks.mjs', import.meta.url);
