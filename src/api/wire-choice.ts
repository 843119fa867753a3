// Which HTTP client carries a request, chosen by what the run turns out to hold. Requests go out on
// Node's own client until the service has answered one: a run of one number, given as an argument
// or on one line of stdin alike, never loads undici, whose pool and WebAssembly parser take longer
// to load and compile than such a run spends on the wire, and the requests sent while that first
// answer is awaited (numbers given together, enrich's three lookups) share Node's client. From the
// first answer on, undici's pool carries the rest: a bulk run's thousands. A service that sends
// interim (1xx) answers stays on Node's client, which reads them; undici's pool refuses a 100.
import type { PostOutcome, PostRequest, Wire } from './wire.js';

export type HttpClient = 'node' | 'undici';

/** Opens the wire of `client`; `onInterim` is called when a server sends it an interim answer. */
export type OpenWire = (client: HttpClient, onInterim: () => void) => Promise<Wire>;

/** The wire that sends on Node's client, then undici's as above; with `only`, every request on that one. */
export function chooseWire(open: OpenWire, only?: HttpClient): Wire {
  let node: Promise<Wire> | undefined;
  let undici: Promise<Wire> | undefined;
  /** undici's wire once loaded: a bulk run's requests go straight to it. */
  let pool: Wire | undefined;
  let answered = only === 'undici';
  let interim = only === 'node';
  const onInterim = () => {
    interim = true;
  };
  const viaNode = (req: PostRequest): Promise<PostOutcome> =>
    (node ??= open('node', onInterim))
      .then((w) => w.post(req))
      .then((out) => {
        answered = true;
        return out;
      });
  return {
    post(req) {
      if (!answered || interim) return viaNode(req);
      if (pool) return pool.post(req);
      return (undici ??= open('undici', onInterim).then((w) => (pool = w))).then((w) => w.post(req));
    },
    close: async () => {
      await Promise.all([node, undici].map((w) => w?.then((opened) => opened.close(), () => undefined)));
    },
  };
}
