// A run that stopped early, as the error that ends the command (or the library's bulk call).
import { InterruptedError, KeyRefusedError, PaymentRequiredError, ProxyError, ServiceDownError, SpendCapError, TlsError, UsageError, WaitTooLongError, type NumintelError } from '../core/errors.js';
import type { SetupFailure } from '../core/transport.js';
import { CLI_ADVICE, type Advice } from '../core/advice.js';
import type { RunOutcome } from './runner.js';
import { formatWait } from './dispatch/retry.js';

type Stop = NonNullable<RunOutcome['stopped']>;

/** The run stopped because no request can succeed until a setting is fixed (TLS, proxy). */
export function isSetupStop(stop: Stop | null): boolean {
  return stop?.reason === 'refused' && stop.setup !== undefined;
}

/** A setup failure as the error of its kind, which the transport tagged it with. */
function setupError(setup: SetupFailure, message: string): NumintelError {
  if (setup === 'tls') return new TlsError(message);
  if (setup === 'proxy') return new ProxyError(message);
  return new UsageError(message);
}

/**
 * Callers treat `closed` (the reader went away) as success before asking for an error. `advice`:
 * the user's names for the settings the message tells them to change (the library's options).
 */
export function stopFailure(stop: Stop, resumeHint?: string, capOf?: string, advice: Advice = CLI_ADVICE): NumintelError {
  switch (stop.reason) {
    case 'refused': {
      // A fatal outcome that is not the service's refusal of the key is a setup error (a TLS or
      // certificate failure, a proxy refusing the tunnel): its message names the cause and the fix,
      // and nothing was looked up that a resume would skip.
      if (stop.setup) return setupError(stop.setup, stop.error?.message ?? 'the connection could not be set up');
      // The client's message already says what the service said and what to do about it.
      const said = stop.error?.message ?? 'the service refused the API key or wants payment';
      const Refusal = stop.error?.code === 'payment_required' ? PaymentRequiredError : KeyRefusedError;
      return new Refusal(`${said}; the run stopped`, resumeHint);
    }
    case 'breaker': {
      const why = stop.error?.message ? `: ${stop.error.message}` : '';
      return new ServiceDownError(`stopped: the service kept failing${why}`, resumeHint && `when it is healthy again, ${resumeHint}`);
    }
    case 'wait': {
      // Named with what the service said, so the user can tell a proxy's "come back tomorrow"
      // from the service's own rate limit, and choose between waiting and raising --max-wait.
      const asked = `the service asked to wait ${formatWait(stop.hintMs ?? 0)}, longer than ${advice.maxWait} allows`;
      const said = stop.error?.message ? ` (${stop.error.message})` : '';
      const later = `${resumeHint ? `after that wait, ${resumeHint};` : 'try again after that wait,'} or raise ${advice.raiseMaxWait}`;
      return new WaitTooLongError(`stopped: ${asked}${said}`, later);
    }
    case 'cap':
      return new SpendCapError(`stopped: the spend cap is reached${capOf ? ` (${capOf})` : ''}; every finished row is written`, resumeHint && `to go on, raise the cap and ${resumeHint}`);
    default:
      return new InterruptedError('interrupted', resumeHint);
  }
}
