#!/usr/bin/env node
// `npm run demo`: the main job on the built-in sandbox, with no key and no network — tables for
// the three lookups over samples/numbers.txt, then samples/contacts.csv enriched to a CSV file,
// and the report of what that file holds, in the terminal and as an HTML page.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'numintel.js');
const out = join(root, 'demo-output', 'contacts.enriched.csv');

function numintel(title, args) {
  process.stdout.write(`\n\x1b[1m$ numintel ${args.join(' ')}\x1b[0m   # ${title}\n`);
  const run = spawnSync(process.execPath, [cli, ...args], { cwd: root, stdio: 'inherit' });
  // 4 means "some numbers were invalid": the samples include a few on purpose.
  if (run.status !== 0 && run.status !== 4) {
    process.stderr.write(`demo: numintel exited with ${run.status ?? run.signal}\n`);
    process.exit(1);
  }
}

numintel('routing numbers', ['lrn', '--sandbox', '-f', 'table', '-i', 'samples/numbers.txt']);
numintel('carrier, location and messaging of one ported number', ['lrn', '--sandbox', '--enhanced', '--messaging', '-f', 'table', '5125550182']);
numintel('caller name and spam class', ['cnam', '--sandbox', '--spam', '-f', 'table', '-i', 'samples/numbers.txt']);
numintel('reputation', ['trust', '--sandbox', '-f', 'table', '-i', 'samples/numbers.txt']);

mkdirSync(dirname(out), { recursive: true });
numintel('every lookup for every row of a CSV, in one pass', [
  'enrich', '--sandbox', '--lookups', 'lrn,cnam,trust', '--enhanced', '--spam', 'samples/contacts.csv', '-o', out,
]);
const lines = readFileSync(out, 'utf8').split('\n');
process.stdout.write(`\n${out} (${lines.length - 2} rows), first lines:\n${lines.slice(0, 4).join('\n')}\n`);
numintel('what the enriched file holds: line types, porting, carriers, states, spam', ['report', out, '--html', join(dirname(out), 'contacts.report.html')]);
process.stdout.write(`\nThe same report as a page: ${join(dirname(out), 'contacts.report.html')}\n`);
