import { trustResult } from '../data.js';
import type { SandboxLookupData } from './entry.js';

export const trustData: SandboxLookupData = {
  kind: 'trust',
  result: (s) => trustResult(s),
  // The SDK's `TELEMARKETER` spam type, for every other spam number by its score, so the same
  // number always gets the same answer.
  realService: (result) =>
    result.spam_type === 'SPAM' && typeof result.reputation_score === 'number' && result.reputation_score % 2 === 0 ? { ...result, spam_type: 'TELEMARKETER' } : result,
};
