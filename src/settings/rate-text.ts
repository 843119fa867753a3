// What --rate (config rate) means and defaults to, said alike by `lrn --help` and `help environment`.
import { LOOKUP_KINDS, LOOKUPS } from '../core/lookups.js';

/** Each lookup's start pace, from its descriptor: "LRN 200/s, CNAM 50/s, …". */
const starts = (): string => LOOKUP_KINDS.map((k) => `${LOOKUPS[k].title} ${LOOKUPS[k].defaultRate}/s`).join(', ');

/** The setting's description, its default included. */
export function rateDescription(): string {
  return `a ceiling, requests per second per lookup; 0 = none (default: each lookup's documented limit, ${starts()}, then the pace the service's rate headers allow)`;
}
