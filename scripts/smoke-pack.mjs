#!/usr/bin/env node
// Packaged smoke test: what a user gets from the tarball, on each Node line users run.
// `npm pack`, the tarball installed globally into a temporary prefix and locally into a plain
// project, then with Node 20, 22 and 24 (the registry's `node` package, through npx, serves the
// ones this machine lacks): `numintel --version`; `numintel sandbox --tls`; `lrn` by argument,
// from stdin and from a CSV over HTTPS (trusted through NODE_EXTRA_CA_CERTS and through
// --ca-file), the answer then from the lookup cache (LMDB, as the bundle loads it) by argument and
// from stdin, with lmdb's binding loaded from its kept place;
// the key prompt in a pseudo-terminal (util-linux `script`), typed after the prompt
// shows, never echoed; the library imported from a plain .mjs file; and nothing written into the
// install directory by any of it.
//
//   node scripts/smoke-pack.mjs [20 22 24]     (default: all three)
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const versions = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['20', '22', '24'];
const work = mkdtempSync(join(tmpdir(), 'numintel-smoke-'));
const KEY = 'sk_smoke_0123456789abcdef';
let failures = 0;

try {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  // --ignore-scripts: the tarball of the tree as built by `npm test` (prepare would build it again).
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: root, encoding: 'utf8' }));
  const tarball = join(work, packed[0].filename);
  const prefix = join(work, 'prefix');
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"smoke-app","private":true,"type":"module"}\n');
  const quietNpm = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
  execFileSync('npm', ['install', '-g', '--prefix', prefix, ...quietNpm, tarball], { stdio: 'inherit' });
  execFileSync('npm', ['install', ...quietNpm, tarball], { cwd: app, stdio: 'inherit' });
  const bin = join(prefix, 'bin', 'numintel');
  const installed = join(prefix, 'lib', 'node_modules', 'numintel');
  const before = listing(installed);

  for (const major of versions) {
    const node = nodeBinary(major);
    const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    console.log(`\n== Node ${nodeVersion}`);
    // The launcher's #!/usr/bin/env node finds this Node first.
    const env = { PATH: `${dirname(node)}:${process.env.PATH}`, HOME: join(work, `home-${major}`), NUMINTEL_CONFIG_DIR: join(work, `config-${major}`) };
    mkdirSync(env.HOME, { recursive: true });

    await check(`numintel --version is ${version}`, async () => {
      const r = await run(bin, ['--version'], { env });
      expect(r.code === 0 && r.stdout.trim() === version, r);
    });

    await check('the bash completion script, from the installed program, is valid bash naming every command', async () => {
      const r = await run(bin, ['completion', 'bash'], { env });
      const syntax = await run('bash', ['-n'], { env, stdin: r.stdout });
      expect(r.code === 0 && syntax.code === 0 && ['lrn', 'cnam', 'trust', 'enrich', 'cache', 'doctor'].every((c) => r.stdout.includes(c)), { r, syntax });
    });

    const sandbox = await startTlsSandbox(bin, env);
    try {
      const service = { ...env, NUMINTEL_BASE_URL: sandbox.url, NUMINTEL_API_KEY: sandbox.apiKey };
      const trusted = { ...service, NODE_EXTRA_CA_CERTS: sandbox.caFile };
      await check('lrn by argument over HTTPS (NODE_EXTRA_CA_CERTS)', async () => {
        const r = await run(bin, ['lrn', '12015550123', '-f', 'jsonl'], { env: trusted });
        expect(r.code === 0 && JSON.parse(r.stdout).ok === true, r);
      });
      await check('the same again comes from the lookup cache, with no warning', async () => {
        const r = await run(bin, ['lrn', '12015550123', '-f', 'jsonl'], { env: service });
        expect(r.code === 0 && r.stderr === '' && JSON.parse(r.stdout).cached === true, r);
      });
      await check('a run from stdin reads it from the lookup cache too, with no warning', async () => {
        const r = await run(bin, ['lrn', '-f', 'jsonl'], { env: service, stdin: '12015550123\n' });
        expect(r.code === 0 && r.stderr === '' && JSON.parse(r.stdout).cached === true, r);
      });
      await check("lmdb's binding is loaded from the place kept beside the code caches (found inside the install)", async () => {
        const keptFile = join(env.HOME, '.cache', 'numintel', 'code', 'lmdb-binding.json');
        const kept = JSON.parse(readFileSync(keptFile, 'utf8'));
        // Kept pointing at a copy, the next run loads the copy: the kept place is used, not searched.
        const copy = join(env.HOME, 'copy.node');
        copyFileSync(kept.path, copy);
        writeFileSync(keptFile, JSON.stringify({ ...kept, path: copy }));
        const r = await run(bin, ['lrn', '12015550123', '-f', 'jsonl'], { env: { ...service, NODE_DEBUG: 'module' } });
        const loaded = [...r.stderr.matchAll(/load "([^"]*\.node)"/g)].map((m) => m[1]);
        writeFileSync(keptFile, JSON.stringify(kept));
        expect(r.code === 0 && kept.path.startsWith(installed) && loaded.length === 1 && loaded[0] === copy, { kept, loaded });
      });
      await check('lrn by argument over HTTPS (--ca-file), GraphQL', async () => {
        // --no-cache: the answer cached above would otherwise be served without a connection.
        const r = await run(bin, ['lrn', '12015550123', '-f', 'jsonl', '--ca-file', sandbox.caFile, '--transport', 'graphql', '--no-cache'], { env: service });
        expect(r.code === 0 && JSON.parse(r.stdout).ok === true && JSON.parse(r.stdout).cached === false, r);
      });
      await check('cnam from stdin and trust from a CSV over HTTPS', async () => {
        const a = await run(bin, ['cnam', '-q'], { env: trusted, stdin: '2015550123\n2125550147\n' });
        const csv = join(work, `in-${major}.csv`);
        writeFileSync(csv, 'name,phone\nAda,(201) 555-0123\n');
        const b = await run(bin, ['trust', '-i', csv, '-q'], { env: trusted });
        expect(a.code === 0 && a.stdout.trim().split('\n').every((l) => JSON.parse(l).ok === true), a);
        expect(b.code === 0 && /^name,phone,number,/.test(b.stdout) && b.stdout.includes('Ada,(201) 555-0123,12015550123'), b);
      });
      await check('an untrusted certificate is a setup error (exit 2), the key not shown', async () => {
        // --no-cache: the trusted run above cached this answer, and a cached answer needs no connection.
        const r = await run(bin, ['lrn', '12015550123', '-f', 'jsonl', '--no-cache'], { env: service });
        expect(r.code === 2 && r.stdout === '' && !r.stderr.includes(sandbox.apiKey), r);
      });
      await check('doctor over HTTPS (--ca-file): the key accepted, not shown', async () => {
        const r = await run(bin, ['doctor', '--ca-file', sandbox.caFile], { env: service });
        expect(r.code === 0 && !r.stdout.includes(sandbox.apiKey) && !r.stderr.includes(sandbox.apiKey), r);
      });
      await check('the key prompt in a terminal: typed after the prompt, never echoed, stored', async () => {
        const r = await typeAtPrompt(bin, ['config', 'set', 'api-key'], env, /API key[^:]*:/, KEY);
        const stored = JSON.parse(readFileSync(join(env.NUMINTEL_CONFIG_DIR, 'config.json'), 'utf8'));
        expect(r.code === 0 && !r.screen.includes(KEY) && stored.profiles.default['api-key'] === KEY, r);
      });
      await check('the library from a plain .mjs: createClient over HTTPS', async () => {
        const script = join(app, 'lookup.mjs');
        writeFileSync(
          script,
          `import { createClient } from 'numintel';\n` +
            `const client = createClient({ baseUrl: process.env.URL, apiKey: process.env.KEY });\n` +
            `const record = await client.lookup('lrn', '(201) 555-0123');\n` +
            `await client.close();\n` +
            `console.log(JSON.stringify(record));\n`,
        );
        const r = await run(node, [script], { env: { ...env, URL: sandbox.url, KEY: sandbox.apiKey, NODE_EXTRA_CA_CERTS: sandbox.caFile }, cwd: app });
        expect(r.code === 0 && JSON.parse(r.stdout).number === '12015550123', r);
      });
    } finally {
      sandbox.stop();
    }
  }
  await check('nothing was written into the install directory', async () => {
    const after = listing(installed);
    expect(JSON.stringify(after) === JSON.stringify(before), { added: after.filter((f) => !before.includes(f)) });
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Every file below `dir` with its size and time, sorted. */
function listing(dir) {
  return readdirSync(dir, { recursive: true }).map((f) => {
    const st = statSync(join(dir, f));
    return `${f} ${st.size} ${st.mtimeMs}`;
  }).sort();
}
console.log(failures === 0 ? '\nsmoke: every check passed' : `\nsmoke: ${failures} check(s) failed`);
process.exitCode = failures === 0 ? 0 : 1;

/** This machine's Node when it is of that major version, else the registry's `node` package. */
function nodeBinary(major) {
  if (process.versions.node.split('.')[0] === major) return process.execPath;
  return execFileSync('npx', ['-y', '-p', `node@${major}`, '-c', 'command -v node'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (err) {
    failures++;
    console.log(`FAIL ${name}\n${err.message}`);
  }
}

function expect(condition, detail) {
  if (!condition) throw new Error(JSON.stringify(detail, null, 2));
}

function run(command, args, { env, stdin = '', cwd = work, timeoutMs = 30_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}

/** `numintel sandbox --tls` on a free port; its URL, key and the certificate to trust, from what it prints. */
function startTlsSandbox(bin, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['sandbox', '--tls', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the TLS sandbox did not start: ${out}`));
    }, 20_000);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const url = /listening on (https:\/\/\S+) \(API key: (\S+?)\)/.exec(out);
      const ca = /certificate: (\S+\.pem)/.exec(out);
      if (url && ca) {
        clearTimeout(timer);
        resolve({ url: url[1], apiKey: url[2], caFile: ca[1], stop: () => child.kill('SIGTERM') });
      }
    });
    child.on('exit', (code) => reject(new Error(`the TLS sandbox exited ${code}: ${out}`)));
  });
}

/**
 * Runs a command in a pseudo-terminal (util-linux `script`), waits for the prompt on its screen,
 * then types the answer as a person would. The screen is everything the terminal showed.
 */
function typeAtPrompt(bin, args, env, prompt, answer) {
  return new Promise((resolve, reject) => {
    const command = [bin, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let typed = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      screen += d;
      if (!typed && prompt.test(screen)) {
        typed = true;
        child.stdin.write(`${answer}\r`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, screen });
    });
  });
}
