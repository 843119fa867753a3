// Small text helpers written as loops where the obvious regex would backtrack on hostile input
// (test/core/regex-safety.test.ts checks every regex in src/).

/** `s` without the slashes it ends with (`/\/+$/` is quadratic on a long run of slashes). */
export function withoutTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end--;
  return s.slice(0, end);
}

/** The text of an HTML page, roughly: script and style blocks dropped, tags turned to spaces. Linear. */
export function htmlText(html: string): string {
  const lower = html.toLowerCase();
  let out = '';
  let at = 0;
  for (const open of lower.matchAll(/<(?:script|style)\b/g)) {
    if (open.index < at) continue; // inside a block already dropped
    out += html.slice(at, open.index) + ' ';
    const tag = open[0].slice(1);
    const close = lower.indexOf(`</${tag}`, open.index);
    const end = close < 0 ? -1 : lower.indexOf('>', close);
    at = end < 0 ? html.length : end + 1;
  }
  out += html.slice(at);
  return out.replace(/<[^<>]*>/g, ' ');
}
