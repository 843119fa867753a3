// A Stop behaves as an AbortController and its AbortSignal do, for what numintel reads of them:
// each case runs on both, and the two must agree.
import { describe, expect, it } from 'vitest';
import { Stop, type StopSignal } from '../../src/core/stop.js';

interface Controller {
  readonly signal: StopSignal;
  abort(reason?: unknown): void;
}

const KINDS: [string, () => Controller][] = [
  ['AbortController', () => new AbortController()],
  ['Stop', () => new Stop()],
];

describe.each(KINDS)('%s', (_, make) => {
  it('is not aborted until abort(), then keeps the first reason', () => {
    const c = make();
    expect(c.signal.aborted).toBe(false);
    expect(c.signal.reason).toBeUndefined();
    expect(() => c.signal.throwIfAborted()).not.toThrow();
    const why = new Error('first');
    c.abort(why);
    c.abort(new Error('second'));
    expect(c.signal.aborted).toBe(true);
    expect(c.signal.reason).toBe(why);
    expect(() => c.signal.throwIfAborted()).toThrow(why);
  });

  it('gives an AbortError DOMException as the reason when none is given', () => {
    const c = make();
    c.abort();
    expect(c.signal.reason).toBeInstanceOf(DOMException);
    expect(c.signal.reason).toMatchObject({ name: 'AbortError' });
  });

  it('calls each listener once, in the order added; a listener added twice once; a removed one never', () => {
    const c = make();
    const heard: string[] = [];
    const a = () => heard.push('a');
    const b = () => heard.push('b');
    const gone = () => heard.push('gone');
    c.signal.addEventListener('abort', a, { once: true });
    c.signal.addEventListener('abort', gone);
    c.signal.addEventListener('abort', b);
    c.signal.addEventListener('abort', a);
    c.signal.removeEventListener('abort', gone);
    c.abort();
    c.abort();
    expect(heard).toEqual(['a', 'b']);
  });

  it('does not call a listener removed by an earlier one, nor one added after the abort', () => {
    const c = make();
    const heard: string[] = [];
    const later = () => heard.push('later');
    c.signal.addEventListener('abort', () => {
      heard.push('first');
      c.signal.removeEventListener('abort', later);
    });
    c.signal.addEventListener('abort', later);
    c.abort();
    c.signal.addEventListener('abort', () => heard.push('after'));
    expect(heard).toEqual(['first']);
  });
});

describe('Stop', () => {
  it('calls every listener even when one throws, then throws its error', () => {
    const stop = new Stop();
    const heard: string[] = [];
    const boom = new Error('listener');
    stop.signal.addEventListener('abort', () => {
      throw boom;
    });
    stop.signal.addEventListener('abort', () => heard.push('next'));
    expect(() => stop.abort()).toThrow(boom);
    expect(heard).toEqual(['next']);
    expect(stop.signal.aborted).toBe(true);
  });

  it('is its own signal', () => {
    const stop = new Stop();
    expect(stop.signal).toBe(stop);
  });
});
