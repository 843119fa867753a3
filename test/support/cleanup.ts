// What support modules leave to clean up after the current test or the current test file, run by
// setup.ts's hooks. Test files share one copy of these modules in a worker (vitest's isolate:
// false), so a hook a module registered as it loaded would belong to the first file alone.

type Cleanup = () => unknown;

const afterTest: Cleanup[] = [];
const afterFile: Cleanup[] = [];

/** Runs `fn` once the current test is done. */
export function afterThisTest(fn: Cleanup): void {
  afterTest.push(fn);
}

/** Runs `fn` once the current test file is done. */
export function afterThisFile(fn: Cleanup): void {
  afterFile.push(fn);
}

/** Runs the cleanups in the reverse of their order, one at a time: what was made last goes first. */
export async function runCleanups(which: 'test' | 'file'): Promise<void> {
  const list = which === 'test' ? afterTest : afterFile;
  const errors: unknown[] = [];
  for (const fn of list.splice(0).reverse()) {
    try {
      await fn();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length > 0) throw errors.length === 1 ? errors[0] : new AggregateError(errors, `${errors.length} cleanups failed`);
}
