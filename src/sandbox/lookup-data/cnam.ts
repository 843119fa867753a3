import { cnamResult } from '../data.js';
import type { SandboxLookupData } from './entry.js';

export const cnamData: SandboxLookupData = {
  kind: 'cnam',
  result: (s, opts) => cnamResult(s, opts.spam === true),
};
