#!/usr/bin/env node
// Thin launcher: the program is bundled into dist/bundle/ (built by `npm install` through the
// prepare script, or `npm run build`).
import { main } from '../dist/bundle/main.js';

main();
