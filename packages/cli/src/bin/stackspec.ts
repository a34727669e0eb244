#!/usr/bin/env node
import { processIO, runCli } from '@stackspec/core/cli';
import { runStackspec } from '../program.js';

const io = processIO();
void runCli(() => runStackspec(process.argv.slice(2), io), io).then((code) => {
  process.exitCode = code;
});
