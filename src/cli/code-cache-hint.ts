// What the launcher (bin/numintel.js) learns from the run for its V8 code cache: the parts of the
// program a run of its kind may or may not use. A run that used a part its code cache lacks
// compiled that part from source; its cache, holding the part too, is the one worth keeping.

/** sent: a number given as an argument was sent (on Node's http client); stream: numbers came from stdin or a file; table: a table was drawn. */
export type CompiledPart = 'sent' | 'stream' | 'table';

export function noteCompiled(part: CompiledPart): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for(`numintel.compiled.${part}`)] = true;
}
