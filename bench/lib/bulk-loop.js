// The library's bulk() over a list of numbers, every record read and nothing written: the
// pipeline without the CLI, for bench/gc-promotion.js.
//   node bench/lib/bulk-loop.js <base-url> <key> <numbers file> <concurrency>
import { readFileSync } from 'node:fs';
import { createClient } from '../../dist/index.js';

const [url, key, file, conc] = process.argv.slice(2);
const numbers = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const client = createClient({ baseUrl: url, apiKey: key, cache: 'off', concurrency: Number(conc ?? 16), rates: { lrn: 0 } });
let ok = 0;
for await (const record of client.bulk('lrn', numbers)) if (record.ok) ok++;
await client.close();
if (ok !== numbers.length) throw new Error(`bulk loop: ${numbers.length - ok} lookups failed`);
