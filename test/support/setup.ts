// Runs before each test file (vitest.config.ts setupFiles): the cleanups support modules schedule.
import { afterAll, afterEach } from 'vitest';
import { runCleanups } from './cleanup.js';

afterEach(() => runCleanups('test'));
afterAll(() => runCleanups('file'));
