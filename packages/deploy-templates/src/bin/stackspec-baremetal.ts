#!/usr/bin/env node
import { processIO } from '@stackspec/core/cli';
import { runBaremetalCli } from '../cli.js';

void runBaremetalCli(process.argv.slice(2), processIO()).then((code) => {
  process.exitCode = code;
});
