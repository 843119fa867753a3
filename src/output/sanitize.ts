// Making service text safe for where it is shown: a terminal (the table) or a spreadsheet (CSV).

// ANSI/VT escape sequences: CSI (ESC [ or 8-bit 0x9B) with parameters and a final byte; OSC, DCS,
// SOS, PM, APC strings up to BEL or ST; and two-character ESC sequences. Removed whole, so no
// parameter bytes are left behind once the control characters go.
// oxlint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;
const LINE_BREAKS = /[\t\n\v\f\r\x85\u2028\u2029]+/g;
// C0, DEL, C1, and the bidi overrides/isolates that can make a terminal line read differently
// from what it holds.
// oxlint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

// Every match of the three above holds one of these.
// oxlint-disable-next-line no-control-regex
const ANY_CONTROL_OR_BREAK = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** For the terminal: escape sequences and control characters removed, tabs and line breaks as one space. */
export function stripControl(text: string): string {
  // Nearly every cell holds none: one test, and the three patterns are never compiled (a table
  // of one number paid a tenth of a millisecond for them).
  if (!ANY_CONTROL_OR_BREAK.test(text)) return text;
  return text.replace(ESCAPE_SEQUENCE, '').replace(LINE_BREAKS, ' ').replace(CONTROL, '');
}

// Controls other than tab and line breaks (which CSV quoting carries).
// oxlint-disable-next-line no-control-regex
const CONTROL_BUT_BREAKS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
// oxlint-disable-next-line no-control-regex
const ANY_CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/**
 * For a file: escape sequences and control characters removed, tabs and line breaks kept (a CSV
 * cell quotes them), so `cat`ing the file cannot drive the terminal.
 */
export function stripEscapes(text: string): string {
  // Every escape sequence starts with a control character: text without one (nearly every cell)
  // is returned after one test instead of two replacements.
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL_BUT_BREAKS, '');
}

// A number, signed or not, cannot be a formula; leaving it alone keeps `+12015550123` and `-5` usable.
const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/;
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * OWASP CSV-injection guidance: a cell a spreadsheet would treat as a formula (starting with `=`,
 * `+`, `-`, `@`, tab or CR) gets a leading `'`, which spreadsheets show as text.
 */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}
