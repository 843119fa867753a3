// A realistic mix of U.S. carriers (name, OCN, type) and messaging providers, with weights that
// roughly follow market share. OCNs are real-looking 4-character codes.

export type CarrierType = 'WIRELESS' | 'LANDLINE' | 'VOIP' | 'TOLLFREE';

export interface Carrier {
  readonly name: string;
  readonly ocn: string;
  readonly type: CarrierType;
  /** Relative share among carriers of its type. */
  readonly weight: number;
  /** Who carries its text messages. */
  readonly messaging: string;
}

const CARRIERS: readonly Carrier[] = [
  { name: 'Verizon Wireless', ocn: '6006', type: 'WIRELESS', weight: 30, messaging: 'Verizon Wireless' },
  { name: 'T-Mobile USA', ocn: '6529', type: 'WIRELESS', weight: 28, messaging: 'T-Mobile' },
  { name: 'AT&T Mobility', ocn: '6214', type: 'WIRELESS', weight: 26, messaging: 'AT&T' },
  { name: 'US Cellular', ocn: '6010', type: 'WIRELESS', weight: 4, messaging: 'US Cellular' },
  { name: 'Cricket Wireless', ocn: '6664', type: 'WIRELESS', weight: 5, messaging: 'AT&T' },
  { name: 'Metro by T-Mobile', ocn: '6173', type: 'WIRELESS', weight: 5, messaging: 'T-Mobile' },
  { name: 'Verizon', ocn: '9102', type: 'LANDLINE', weight: 22, messaging: 'Syniverse' },
  { name: 'AT&T', ocn: '9740', type: 'LANDLINE', weight: 22, messaging: 'Syniverse' },
  { name: 'Lumen Technologies', ocn: '9636', type: 'LANDLINE', weight: 14, messaging: 'Syniverse' },
  { name: 'Frontier Communications', ocn: '0296', type: 'LANDLINE', weight: 10, messaging: 'Syniverse' },
  { name: 'Windstream', ocn: '0172', type: 'LANDLINE', weight: 6, messaging: 'Syniverse' },
  { name: 'Comcast Phone', ocn: '7820', type: 'LANDLINE', weight: 14, messaging: 'Sinch' },
  { name: 'Charter Fiberlink', ocn: '826F', type: 'LANDLINE', weight: 12, messaging: 'Sinch' },
  { name: 'Bandwidth.com CLEC', ocn: '981E', type: 'VOIP', weight: 30, messaging: 'Bandwidth' },
  { name: 'Onvoy Spectrum', ocn: '7459', type: 'VOIP', weight: 18, messaging: 'Sinch' },
  { name: 'Level 3 Communications', ocn: '8825', type: 'VOIP', weight: 14, messaging: 'Lumen Messaging' },
  { name: 'Twilio International', ocn: '4B3E', type: 'VOIP', weight: 12, messaging: 'Twilio' },
  { name: 'Peerless Network', ocn: '4308', type: 'VOIP', weight: 10, messaging: 'Peerless Messaging' },
  { name: 'Google Voice', ocn: '5174', type: 'VOIP', weight: 10, messaging: 'Google Voice' },
  { name: 'Vonage America', ocn: '7395', type: 'VOIP', weight: 6, messaging: 'Vonage' },
];

const TOLL_FREE_CARRIERS: readonly Carrier[] = [
  { name: 'AT&T Toll Free', ocn: 'ATX1', type: 'TOLLFREE', weight: 40, messaging: 'Syniverse' },
  { name: 'Verizon Business', ocn: 'VZB1', type: 'TOLLFREE', weight: 35, messaging: 'Syniverse' },
  { name: 'Bandwidth Toll Free', ocn: 'BWT1', type: 'TOLLFREE', weight: 25, messaging: 'Bandwidth' },
];

/** Share of geographic numbers by type, in percent. */
const TYPE_SHARE: ReadonlyArray<readonly [CarrierType, number]> = [
  ['WIRELESS', 62],
  ['LANDLINE', 22],
  ['VOIP', 16],
];

/** Cumulative weights, so picking is one bounded scan with no allocation per lookup. */
export interface WeightedPick<T> {
  readonly items: readonly T[];
  readonly cumulative: readonly number[];
  readonly total: number;
}

function weighted<T>(items: readonly T[], weightOf: (t: T) => number): WeightedPick<T> {
  const cumulative: number[] = [];
  let total = 0;
  for (const it of items) cumulative.push((total += weightOf(it)));
  return { items, cumulative, total };
}

/** `u` is a 32-bit unsigned value from the number's hash. */
export function pick<T>(w: WeightedPick<T>, u: number): T {
  const target = u % w.total;
  let i = 0;
  while (i < w.cumulative.length - 1 && (w.cumulative[i] ?? 0) <= target) i++;
  return w.items[i] as T;
}

export const CARRIERS_BY_TYPE: Readonly<Record<Exclude<CarrierType, 'TOLLFREE'>, WeightedPick<Carrier>>> = {
  WIRELESS: weighted(CARRIERS.filter((c) => c.type === 'WIRELESS'), (c) => c.weight),
  LANDLINE: weighted(CARRIERS.filter((c) => c.type === 'LANDLINE'), (c) => c.weight),
  VOIP: weighted(CARRIERS.filter((c) => c.type === 'VOIP'), (c) => c.weight),
};
export const TOLL_FREE_PICK = weighted(TOLL_FREE_CARRIERS, (c) => c.weight);
export const TYPE_PICK = weighted(TYPE_SHARE, (t) => t[1]);
