// Which hosts only this machine can reach: the client sends an API key over plain http:// only to
// them, and the sandbox keeps its admin endpoints open there alone. A module of its own, so the
// command line can ask without loading the sandbox's server (and graphql).

/**
 * 127.0.0.0/8, ::1 and localhost, as a WHATWG URL gives the host name (`[::ffff:7f00:1]`) or as a
 * user types it (`::ffff:127.0.0.1`, `0:0:0:0:0:0:0:1`, brackets, case, spaces).
 */
export function isLoopback(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) h = h.slice(1);
  if (h.endsWith(']')) h = h.slice(0, -1);
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const mapped = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : undefined;
  if (isLoopbackV4(mapped ?? h)) return true;
  // ::ffff:7fXX:YYYY, the mapped 127.0.0.0/8 in hexadecimal.
  const groups = mapped?.split(':');
  return groups?.length === 2 && groups[0]?.length === 4 && groups[0].startsWith('7f') && isHex(groups[0]) && isHex(groups[1] ?? '', 4);
}

// The checks are written out rather than as regular expressions: the one for a dotted quad took
// V8 a tenth of a millisecond to compile, in every run that asks (a key sent to a loopback service).

/** 127.x.y.z, each part one to three digits. */
function isLoopbackV4(h: string): boolean {
  const parts = h.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => p.length >= 1 && p.length <= 3 && isDigits(p));
}

function isDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 48 || s.charCodeAt(i) > 57) return false;
  return true;
}

/** One to `max` hexadecimal digits (lower case: the host is lowered first). */
function isHex(s: string, max = s.length): boolean {
  if (s.length < 1 || s.length > max) return false;
  for (const c of s) if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}
