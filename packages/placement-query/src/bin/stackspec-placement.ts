#!/usr/bin/env node
import { processIO, runCli } from '@stackspec/core/cli';
import { runPlacementCli } from '../cli.js';

const io = processIO();
// No top-level await: the CommonJS build of this entry cannot have it.
void runCli(() => runPlacementCli(process.argv.slice(2), io), io).then((code) => {
  process.exitCode = code;
});
