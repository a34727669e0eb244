#!/usr/bin/env node
import { processIO, runCli } from '@stackspec/core/cli';
import { runHeatCli } from '../cli/program.js';

const io = processIO();
// No top-level await: the bin is also built as CommonJS.
void runCli(() => runHeatCli(process.argv.slice(2), io), io).then((code) => {
  process.exitCode = code;
});
