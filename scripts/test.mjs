// `npm test`: the type-check and lint run beside the build and the test suite instead of before
// them. Most end-to-end tests wait on a sandbox or a child process more than they compute, so on
// two cores the checks (tsc 7 and oxlint, a few CPU-seconds together) fit in time the suite leaves
// idle.
// The suite's output streams as it comes; each check's is printed after it, with its status.
// Arguments after `npm test --` go to vitest. Any step failing fails the whole command.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const node = (script, args, stdio) => spawn(process.execPath, [script, ...args], { cwd: root, stdio });

/** Runs an npm script with its output kept for later; resolves to its exit code and that output. */
function check(name) {
  return new Promise((resolve) => {
    // npm_execpath: the npm running this script, so the check is the package.json script itself.
    const npm = process.env.npm_execpath;
    const child = npm ? node(npm, ['run', '--silent', name], ['ignore', 'pipe', 'pipe']) : spawn('npm', ['run', '--silent', name], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString() }));
  });
}

/** Runs a step with its output on this terminal; resolves to its exit code. */
function step(script, args) {
  return new Promise((resolve) => node(script, args, 'inherit').on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

const checks = Promise.all([check('typecheck'), check('lint')]);
const built = await step('scripts/build.js', []);
const suite = built === 0 ? await step('node_modules/vitest/vitest.mjs', ['run', ...process.argv.slice(2)]) : 1;
let failed = built !== 0 || suite !== 0;
for (const c of await checks) {
  process.stdout.write(`\n── ${c.name}: ${c.code === 0 ? 'passed' : 'FAILED'}\n${c.output}`);
  failed ||= c.code !== 0;
}
process.exitCode = failed ? 1 : 0;
