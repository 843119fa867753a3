#!/usr/bin/env node
// Thin launcher: the program is bundled into dist/bundle/ (built by `npm install` through the
// prepare script, or `npm run build`). On Node 22.1+ V8's compiled code is cached between runs,
// which matters to scripts that start numintel once per number.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/bundle/main.js');
await main();
