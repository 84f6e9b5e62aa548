#!/usr/bin/env node
/** The `answer-once` command (package.json `bin`): `answer-once check <url>`. */
import { main } from './cli.js';

main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
}).then((code) => {
  process.exitCode = code;
});
