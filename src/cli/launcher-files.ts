// What the launcher (bin/numintel.js) needs of the program's file helpers before the program is
// loaded: where its code caches live, and how to make their directory and write one. Built as a small file of its own
// (scripts/build.js), so that the launcher and the program share one resolver and one writer.
export { codeCacheDir } from '../settings/user-dirs.js';
export { writeFileAtomically } from '../fs/write-file-atomically.js';
export { makeDirs } from '../fs/make-dirs.js';
