// Which hosts only this machine can reach: the sandbox keeps its admin endpoints open there alone.
// A module of its own, so the command line can ask without loading the server (and graphql).

/** A host name or address that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::ffff:127.0.0.1';
}
