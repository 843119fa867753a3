import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectOutputForResume, lineBatches } from '../../../src/pipeline/order/resume.js';
import { writtenAnswers, type WrittenAnswers } from '../../../src/pipeline/order/resume-answers.js';
import type { LookupKind } from '../../../src/core/lookups.js';
import { tempDir } from '../../support/tmp.js';

const dir = tempDir('numintel-resume-answers-');
const AT = '2026-11-23T16:45:37.640Z';

async function answers(name: string, lines: readonly unknown[], tail: string, kinds: readonly LookupKind[]): Promise<WrittenAnswers[]> {
  const path = join(dir, name);
  await writeFile(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n${tail}`);
  const point = await inspectOutputForResume(path, 'jsonl');
  const found: WrittenAnswers[] = [];
  for await (const batch of writtenAnswers(path, name, point, kinds)) found.push(...batch);
  return found;
}

describe('the answers a JSON lines file holds, for --resume', () => {
  it('single lookups: each success with its fetch time and cached flag; failures, invalid numbers and the torn tail give nothing', async () => {
    const ok = { input: '2015550123', number: '12015550123', lookup: 'lrn', ok: true, result: { lrn: '12015550000' }, error: null, cached: true, fetched_at: AT };
    const failed = { input: '2015550124', number: '12015550124', lookup: 'lrn', ok: false, result: null, error: { code: 'server_error', message: 'x' }, cached: false, fetched_at: null };
    const invalid = { input: 'abc', number: null, lookup: 'lrn', ok: false, result: null, error: { code: 'invalid_number', message: 'x' }, cached: false, fetched_at: null };
    const found = await answers('single.jsonl', [ok, failed, invalid], '{"input":"2015550125","num', ['lrn']);
    expect(found).toEqual([{ number: '12015550123', answers: [{ result: { lrn: '12015550000' }, error: null, cached: true, fetchedAt: Date.parse(AT) }] }]);
  });

  it('enrich: per lookup of the run, in its order; a lookup that failed gives nothing', async () => {
    const record = {
      input: '2015550123',
      number: '12015550123',
      ok: false,
      results: { lrn: { lrn: '12015550000' }, trust: null },
      errors: { lrn: null, trust: { code: 'timeout', message: 'x' } },
      cached: { lrn: false, trust: false },
      fetched_at: { lrn: AT, trust: null },
    };
    const found = await answers('enrich.jsonl', [record], '', ['lrn', 'trust']);
    expect(found).toEqual([{ number: '12015550123', answers: [{ result: { lrn: '12015550000' }, error: null, cached: false, fetchedAt: Date.parse(AT) }, undefined] }]);
  });

  it('lines are split as text: a character cut between two chunks is whole, the last line needs no newline', async () => {
    const bytes = Buffer.from('{"name":"Zoë"}\n\n{"name":"Łukasz"}\nlast');
    const cut = bytes.indexOf(Buffer.from('ë')) + 1;
    async function* chunks() {
      yield bytes.subarray(0, cut);
      yield bytes.subarray(cut);
    }
    const found: string[][] = [];
    for await (const batch of lineBatches(chunks())) found.push(batch);
    expect(found).toEqual([['{"name":"Zoë"}', '', '{"name":"Łukasz"}'], ['last']]);
  });
});
