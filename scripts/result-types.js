#!/usr/bin/env node
// Writes src/core/result-types.ts from the lookup descriptors (after `npm run build`, which it reads).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultTypesSource } from '../dist/core/result-types-source.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
writeFileSync(join(root, 'src', 'core', 'result-types.ts'), resultTypesSource());
