// Error lines at a terminal wrap between words to its width (the terminal would cut them
// mid-word); piped, each message stays on its own unwrapped lines.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../support/world.js';

const words = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('error lines at an 80-column terminal', () => {
  it('numintel errors and commander usage errors: no line over 80, none cut inside a word, the same words', async () => {
    const runs = [
      ['lrn', '12025550123'],
      ['lrn', '--sandbox', '--base-url', 'https://api-service.verirouteintel.io', '1'],
      ['lrn', '--format', 'nope', '1'],
    ];
    for (const args of runs) {
      const piped = await runInProcess(args);
      const tty = await runInProcess(args, { stderrTTY: true, stderrColumns: 80 });
      expect(tty.code).toBe(2);
      expect(tty.code).toBe(piped.code);
      const lines = tty.stderr.trimEnd().split('\n');
      expect(lines.filter((l) => [...l].length > 80)).toEqual([]);
      expect(words(tty.stderr)).toBe(words(piped.stderr));
      // Every break falls between words: each piped word is whole on some terminal line.
      const onLines = new Set(lines.flatMap((l) => l.trim().split(' ')));
      for (const word of words(piped.stderr).split(' ')) expect(onLines.has(word), word).toBe(true);
    }
  });

  it('the missing base URL at 80 columns, as printed', async () => {
    const r = await runInProcess(['lrn', '12025550123'], { stderrTTY: true, stderrColumns: 80 });
    expect(r.stderr).toBe(
      [
        'numintel: no base URL configured',
        'set one with `numintel config set base-url',
        "  https://api-service.verirouteintel.io` (VeriRoute Intel's API),",
        '  NUMINTEL_BASE_URL or --base-url; or try --sandbox',
        '',
      ].join('\n'),
    );
  });

  it('piped: one line per message, unwrapped, for scripts and logs', async () => {
    const r = await runInProcess(['lrn', '12025550123'], { env: { COLUMNS: '40' } });
    expect(r.stderr.split('\n')[1]).toBe("set one with `numintel config set base-url https://api-service.verirouteintel.io` (VeriRoute Intel's API), NUMINTEL_BASE_URL or --base-url; or try --sandbox");
  });
});
