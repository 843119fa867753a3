// Runs before each test file (vitest.config.ts setupFiles): the cleanups support modules schedule.
import { afterAll, afterEach } from 'vitest';
import { runCleanups } from './cleanup.js';

// The in-process program (world.ts, runCliInProcess), loaded here, once per worker (the files of a
// worker share their modules): otherwise its import falls inside a file's first tests, and with
// them side by side (describe.concurrent) it holds up their sandboxes, in this process, meanwhile.
await import('./world.js');

afterEach(() => runCleanups('test'));
afterAll(() => runCleanups('file'));
