// Whether to colour what goes to a stream: the conventions chalk, gh and most CLIs read, in order.
import type { RunRequest } from './run-request.js';
import type { World } from './world.js';

/**
 * `--no-color`, then NO_COLOR (set and not empty, as no-color.org says) turn colour off; FORCE_COLOR decides next (0 or false:
 * off; 1–3, true or empty: on); then CLICOLOR_FORCE (set and not 0: on), CLICOLOR=0 (off),
 * TERM=dumb (off); otherwise colour only on a terminal.
 */
export function useColor(req: Pick<RunRequest, 'color'>, world: Pick<World, 'env'>, toTerminal: boolean): boolean {
  const env = world.env;
  if (req.color === false || (env.NO_COLOR ?? '') !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force === 'false');
  if ((env.CLICOLOR_FORCE ?? '') !== '' && env.CLICOLOR_FORCE !== '0') return true;
  if (env.CLICOLOR === '0' || env.TERM === 'dumb') return false;
  return toTerminal;
}
