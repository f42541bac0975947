#!/usr/bin/env node
// The mcp-context command: one run of runCli on this process's arguments and streams.
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2));
