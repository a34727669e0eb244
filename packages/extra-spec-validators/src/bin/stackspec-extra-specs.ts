#!/usr/bin/env node
import { processIO } from '@stackspec/core/cli';
import { runExtraSpecsCli } from '../cli.js';

void runExtraSpecsCli(process.argv.slice(2), processIO()).then((code) => {
  process.exitCode = code;
});
