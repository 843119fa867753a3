// string-width (which cli-table3 measures every cell and piece of a cell with, and the table's
// layout too: wrap.ts) compiles an emoji pattern of several kilobytes on its first call: the
// largest single cost of drawing a one-number table. What a table measures is nearly always
// printable ASCII, the box's own lines and the ellipsis it cuts with, some with chalk's colour
// codes around them, and those are measured here exactly as string-width measures them; for
// anything else this says nothing and string-width answers (textWidth in wrap.ts, which the
// bundle gives cli-table3 in place of string-width: scripts/build.js).

const ESC = 0x1b;

/**
 * The columns `text` takes when it is printable ASCII, box-drawing characters, `…` and SGR colour
 * codes (`ESC [ n;n… m`, each number at most three digits, as chalk writes them), the codes taking
 * none and every other character one; otherwise undefined.
 */
export function asciiWidth(text: string): number | undefined {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c <= 0x7e) || (c >= 0x2500 && c <= 0x257f) || c === 0x2026) {
      width += 1;
      continue;
    }
    if (c !== ESC) return undefined;
    const end = sgrEnd(text, i);
    if (end === undefined) return undefined;
    i = end;
  }
  return width;
}

/** The index of the `m` ending the SGR code that starts at `at`, or undefined for anything else. */
function sgrEnd(text: string, at: number): number | undefined {
  if (text.charCodeAt(at + 1) !== 0x5b) return undefined; // [
  let digits = 0;
  for (let i = at + 2; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (++digits > 3) return undefined;
    } else if (c === 0x3b && digits > 0) {
      digits = 0; // ;
    } else if (c === 0x6d && (digits > 0 || i === at + 2)) {
      return i; // m
    } else {
      return undefined;
    }
  }
  return undefined;
}
