// An AbortController for a run's own stops: every wakeup, retry wait and request listens to its
// signal, and Node warns past 10 listeners on one signal, which a run passes at once.
import { setMaxListeners } from 'node:events';

export function runAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
