// Before each test file of the shared project (vitest.config.ts): the in-process program
// (world.ts, runCliInProcess), imported once per worker, as the files of a worker share their
// modules. Otherwise its import falls inside a file's first tests, and with them side by side
// (describe.concurrent) it holds up their sandboxes, in this process, meanwhile.
await import('./world.js');
