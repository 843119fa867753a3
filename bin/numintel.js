#!/usr/bin/env node
// Thin launcher: the program lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/cli/main.js';

main();
