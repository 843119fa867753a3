// The report as data: what `-f json` prints, and what the terminal and HTML renderings draw.
// Counts are whole rows; a `base` is what a section's shares are of; a share is a fraction (0..1).
import type { LookupKind } from '../core/lookups.js';
import type { LineClass, RecencyBucket } from './normalise.js';

export interface Ranked {
  /** Rows with a value. */
  base: number;
  distinct: number;
  top: { name: string; count: number; label?: string }[];
  /** Rows with a value outside the top. */
  rest: number;
}

export interface KindFigures {
  /** Rows that carry this lookup. */
  rows: number;
  /** Rows with an answer. */
  answered: number;
  /** Answers from the cache; null when the output does not say. */
  cached: number | null;
  /** Answers that cost a lookup: not from the cache, not a repeat of a number answered before. */
  billed: number;
  /** Lookups that failed for another reason than an invalid number. */
  failed: number;
  failed_by_code: Record<string, number>;
  price?: number;
  cost?: number;
}

export interface Report {
  as_of: string;
  source: { name?: string; format: string; lookups: LookupKind[] };
  input: {
    rows: number;
    valid: number;
    invalid: number;
    invalid_by_reason: Record<string, number>;
    duplicates: number;
    distinct_numbers: number;
    /** Lines that were not numintel records (a torn last line). */
    unreadable?: number;
  };
  lookups: Partial<Record<LookupKind, KindFigures>>;
  /** Billed lookups at their prices: one line per lookup (price and amount null when it has no price). */
  cost?: {
    currency: string;
    lines: { lookup: LookupKind; billed: number; price: number | null; amount: number | null }[];
    total: number;
  };
  line_type?: Record<LineClass, number> & {
    base: number;
    not_given: number;
    other_codes: Record<string, number>;
    wireless_or_voip: number;
    wireless_or_voip_share: number;
  };
  porting?: {
    base: number;
    ported: number;
    ported_share: number;
    activated: Record<RecencyBucket, number>;
    activated_ported: Record<RecencyBucket, number>;
  };
  carriers?: Ranked;
  states?: Ranked & { all: Record<string, number> };
  time_zones?: Ranked;
  messaging?: {
    base: number;
    enabled: number;
    disabled: number;
    unknown: number;
    enabled_share: number;
    providers: Ranked;
  };
  /**
   * Caller names: real, placeholder (a name that says none is known, see caller-names.ts) and none;
   * only when the output has the caller name (`--fields` may leave it out). `placeholder_names`: each
   * placeholder as normalised, place labels as `(place)`.
   */
  cnam?: {
    base: number;
    real?: number;
    placeholder?: number;
    none?: number;
    real_share?: number;
    placeholder_share?: number;
    none_share?: number;
    placeholder_names?: Record<string, number>;
    spam_types?: Record<string, number>;
  };
  trust?: {
    base: number;
    /** Each flag only when the output has it (`--fields` may leave some out); any_flag when it has all three. */
    spam?: number;
    robocall?: number;
    scam?: number;
    any_flag?: number;
    spam_share?: number;
    robocall_share?: number;
    scam_share?: number;
    any_flag_share?: number;
    levels: Record<string, number>;
    spam_types: Record<string, number>;
    score?: { base: number; mean: number; histogram: { from: number; to: number; count: number }[] };
  };
  /** The numbers to act on: flagged, low trust, or ported lately; the most severe first, at most `limit` of them. */
  act_on?: ActOn;
}

export type ActReason = 'scam' | 'robocall' | 'spam' | 'low_trust' | 'ported_30d';

export interface ActOn {
  /** Distinct numbers with a reason (a repeated number once). */
  total: number;
  /** Only the reasons the output can tell (a `--fields` output may leave out the flags, the level, the LRN). */
  by_reason: Partial<Record<ActReason, number>>;
  limit: number;
  /** The input columns shown for each row (those that say who a row is, not the phone number). */
  columns: string[];
  rows: ActOnRow[];
  /** Numbers left out by the limit. */
  more: number;
}

export interface ActOnRow {
  /** 1-based position among the output's rows. */
  row: number;
  number: string;
  /** The row's values of `columns`, in their order. */
  inputs: string[];
  reasons: ActReason[];
  trust_level?: string;
  score?: number;
  /** Days from the LRN's activation to the report's day, for a ported number. */
  ported_days_ago?: number;
}

export const FOOTER =
  'These figures are signals from the service\u2019s data as it answered, not facts about the people behind the numbers, and not legal advice (TCPA consent included).';
