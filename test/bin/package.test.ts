// What `npm pack` puts in the tarball: the program, its docs and licence, nothing machine-specific;
// metadata a registry page needs; README and engines agree; every file the README links to ships.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireBuiltCli, ROOT } from '../support/cli.js';

requireBuiltCli();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & { engines: { node: string } };
const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as [{ files: { path: string }[] }];
const files = packed[0].files.map((f) => f.path);
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('the packed tarball', () => {
  it('holds the launcher, the bundles, the library with types, the licence and the docs', () => {
    for (const f of ['bin/numintel.js', 'bin/package.json', 'dist/bundle/main.cjs', 'dist/bundle/sandbox.cjs', 'dist/index.js', 'dist/index.d.ts', 'LICENSE', 'README.md', 'package.json', 'docs/sandbox.md']) {
      expect(files).toContain(f);
    }
  });

  it('keeps the sandbox (and graphql) out of the main bundle: a lookup loads neither', () => {
    const main = readFileSync(join(ROOT, 'dist', 'bundle', 'main.cjs'), 'utf8');
    expect(main).not.toContain('GraphQLSchema');
    expect(readFileSync(join(ROOT, 'dist', 'bundle', 'sandbox.cjs'), 'utf8')).toContain('GraphQLSchema');
  });

  it('holds nothing machine-specific or temporary (code caches, temp files, tests)', () => {
    expect(files.filter((f) => /\.cache$|\.tmp$|\.old$|^test\/|^src\/|^bench\/|\.log$/.test(f))).toEqual([]);
  });

  it('has the metadata a registry page shows', () => {
    expect(pkg).toMatchObject({ license: 'MIT', repository: { type: 'git' }, bugs: { url: expect.any(String) }, homepage: expect.any(String) });
    expect((pkg.keywords as string[]).length).toBeGreaterThan(3);
  });

  it('README names the Node version that engines allows', () => {
    const min = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
    expect(min).toBeDefined();
    expect(readme).toContain(`Node.js ${min} or later`);
  });

  it('every file the README links to is in the package', () => {
    const links = [...readme.matchAll(/\]\(((?!https?:|#)[^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(files).toContain(link.replace(/^\.\//, ''));
  });
});
