// This process and a test of whether another runs, for the cache's open gate (src/store/open-gate.ts):
// a marker whose process is gone is removed at once instead of after STALE_MS.
import type { ProcessTable } from '../store/open-gate.js';

export const thisProcess: ProcessTable = {
  self: process.pid,
  alive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      // EPERM: it runs, as another user.
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
};
