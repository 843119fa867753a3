// What the sandbox saw: served as GET /__sandbox/stats and by stats(), so tests (in-process or
// not) can check what a client really sent and what it was billed for.
import { LOOKUP_KINDS, LOOKUPS, type LookupKind, perLookup } from '../core/lookups.js';
import type { FaultKind } from './faults.js';

export interface SandboxStats {
  /** HTTP requests per endpoint (REST per lookup, GraphQL as one); total excludes /__sandbox/*. */
  requests: Record<LookupKind | 'graphql' | 'total', number>;
  /** Authenticated requests per (masked) key. */
  byKey: Record<string, number>;
  /** Billed lookups per "kind:number", REST and GraphQL alike. */
  byNumber: Record<string, number>;
  /** Billed lookups per kind, REST and GraphQL alike. */
  lookups: Record<LookupKind, number>;
  /** 429 answers, real and injected. */
  rateLimited: number;
  /**
   * Requests that reached an endpoint while a 429's hint to their key still held it (those within
   * 100 ms of the 429 left before it arrived, and are not counted).
   */
  early: number;
  /** Billed lookups in all. */
  billed: number;
  /** Answers refused because the number was invalid (never billed). */
  invalid: number;
  unauthorized: number;
  paymentRequired: number;
  /** TLS handshakes that failed (the client did not trust the certificate, or spoke plain HTTP): no request reached the service. */
  tlsFailures: number;
  faults: Record<FaultKind, number> & { delayed: number };
  /**
   * Requests the rate windows let through: how many, when the first and the last came (epoch ms,
   * null before any), and the most that one window of one budget counted.
   */
  windows: { counted: number; first: number | null; last: number | null; busiest: number; counts: Record<string, number> };
  /**
   * The bulk endpoints, per lookup that has one: HTTP requests (also in requests.total), numbers
   * submitted in the requests answered (phone_numbers entries, duplicates included), numbers billed
   * (also in billed, lookups and byNumber); and the rows answered, by status.
   */
  bulk: {
    requests: Partial<Record<LookupKind, number>>;
    numbers: Partial<Record<LookupKind, number>>;
    billed: Partial<Record<LookupKind, number>>;
    rows: Record<BulkRowStatus, number>;
  };
}

export type BulkRowStatus = 'success' | 'cached' | 'failed' | 'invalid';

/** Zero per lookup with a bulk endpoint. */
const perBulkLookup = (): Partial<Record<LookupKind, number>> =>
  Object.fromEntries(LOOKUP_KINDS.filter((k) => LOOKUPS[k].bulk).map((k) => [k, 0])) as Partial<Record<LookupKind, number>>;

/** Windows whose counts the stats keep (the latest first out past this). */
const KEPT_WINDOWS = 100_000;

export type RequestEndpoint = LookupKind | 'graphql';

export class StatsRecorder {
  // One count per lookup registered when the recorder is made (a later one gets its own at its first request).
  private requests = { ...perLookup(() => 0), graphql: 0, total: 0 } as Record<RequestEndpoint | 'total', number>;
  private byKey = new Map<string, number>();
  private byNumber = new Map<string, number>();
  private lookups = perLookup(() => 0);
  private counters = { rateLimited: 0, early: 0, billed: 0, invalid: 0, unauthorized: 0, paymentRequired: 0, tlsFailures: 0 };
  private faults = { reset: 0, hang: 0, error: 0, rate429: 0, delayed: 0 };
  private windows = { counted: 0, first: null as number | null, last: null as number | null, busiest: 0 };
  /** Per "budget:window start (epoch ms)": the requests it counted. */
  private counts = new Map<string, number>();
  private bulk = { requests: perBulkLookup(), numbers: perBulkLookup(), billed: perBulkLookup(), rows: { success: 0, cached: 0, failed: 0, invalid: 0 } };

  /** A request a rate window counted at `at`, the `inWindow`-th of the window `window` ("budget:start"). */
  counted(at: number, inWindow: number, window: string): void {
    const w = this.windows;
    w.counted++;
    w.first ??= at;
    w.last = at;
    if (inWindow > w.busiest) w.busiest = inWindow;
    if (!this.counts.has(window) && this.counts.size >= KEPT_WINDOWS) this.counts.delete(this.counts.keys().next().value as string);
    this.counts.set(window, inWindow);
  }

  request(endpoint: RequestEndpoint): void {
    this.requests[endpoint] = (this.requests[endpoint] ?? 0) + 1;
    this.requests.total++;
  }

  bulkRequest(kind: LookupKind): void {
    this.bulk.requests[kind] = (this.bulk.requests[kind] ?? 0) + 1;
    this.requests.total++;
  }

  /** A bulk request answered: the numbers it carried. */
  bulkAnswered(kind: LookupKind, numbers: number): void {
    this.bulk.numbers[kind] = (this.bulk.numbers[kind] ?? 0) + numbers;
  }

  bulkRow(status: BulkRowStatus): void {
    this.bulk.rows[status]++;
  }

  /** An unknown endpoint still counts towards the total. */
  stray(): void {
    this.requests.total++;
  }

  key(label: string): void {
    this.byKey.set(label, (this.byKey.get(label) ?? 0) + 1);
  }

  /** Counts a billed lookup; says whether this lookup of this number was billed before (since the start or the last reset). */
  bill(kind: LookupKind, number: string, bulk = false): boolean {
    const id = `${kind}:${number}`;
    if (bulk) this.bulk.billed[kind] = (this.bulk.billed[kind] ?? 0) + 1;
    const before = this.byNumber.get(id) ?? 0;
    this.byNumber.set(id, before + 1);
    this.lookups[kind] = (this.lookups[kind] ?? 0) + 1;
    this.counters.billed++;
    return before > 0;
  }

  count(what: 'rateLimited' | 'invalid' | 'unauthorized' | 'paymentRequired' | 'tlsFailures'): void {
    this.counters[what]++;
  }

  early(): void {
    this.counters.early++;
  }

  fault(kind: FaultKind | 'delayed'): void {
    this.faults[kind]++;
  }

  snapshot(): SandboxStats {
    return {
      requests: { ...this.requests },
      byKey: Object.fromEntries(this.byKey),
      byNumber: Object.fromEntries(this.byNumber),
      lookups: { ...this.lookups },
      ...this.counters,
      faults: { ...this.faults },
      windows: { ...this.windows, counts: Object.fromEntries(this.counts) },
      bulk: { requests: { ...this.bulk.requests }, numbers: { ...this.bulk.numbers }, billed: { ...this.bulk.billed }, rows: { ...this.bulk.rows } },
    };
  }
}
