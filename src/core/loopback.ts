// Which hosts only this machine can reach: the client sends an API key over plain http:// only to
// them, and the sandbox keeps its admin endpoints open there alone. A module of its own, so the
// command line can ask without loading the sandbox's server (and graphql).

/**
 * 127.0.0.0/8, ::1 and localhost, as a WHATWG URL gives the host name (`[::ffff:7f00:1]`) or as a
 * user types it (`::ffff:127.0.0.1`, `0:0:0:0:0:0:0:1`, brackets, case, spaces).
 */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (/^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
}
