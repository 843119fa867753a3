// A compact text form for finished results kept for duplicates. Results of one lookup share their
// shape (the same keys, nested the same way), so the keys are stored once per shape and each
// result keeps only its leaf values: `[<shape id>, leaf, leaf, …]`, one flat JSON string (a
// concatenation would leave V8 a rope of three strings, which costs more than it saves).
//
// A result's shape is found by walking its keys down a trie of the shapes seen so far (a step per
// key: a leaf, or the opening of a nested object, or its end), so the common case (a shape seen
// before) builds no skeleton and serialises nothing but the leaves.
import type { Result } from '../../core/records.js';
import { isObject } from '../../core/json.js';

type Skeleton = { [key: string]: Skeleton | 0 };

/** One point of the walk over a result's keys; `id` when a whole shape ends here. */
class Step {
  id: number | undefined;
  private leaves: Map<string, Step> | undefined;
  private opens: Map<string, Step> | undefined;
  private closed: Step | undefined;

  leaf(key: string): Step {
    return stepIn((this.leaves ??= new Map()), key);
  }

  open(key: string): Step {
    return stepIn((this.opens ??= new Map()), key);
  }

  close(): Step {
    return (this.closed ??= new Step());
  }
}

function stepIn(steps: Map<string, Step>, key: string): Step {
  let next = steps.get(key);
  if (!next) steps.set(key, (next = new Step()));
  return next;
}

export class ResultCodec {
  private readonly skeletons: Skeleton[] = [];
  private readonly root = new Step();

  encode(result: Result): string {
    const leaves: unknown[] = [0];
    const end = walk(this.root, result, leaves);
    if (end.id === undefined) {
      end.id = this.skeletons.length;
      this.skeletons.push(skeletonOf(result));
    }
    leaves[0] = end.id;
    return JSON.stringify(leaves);
  }

  decode(text: string): Result {
    const leaves = JSON.parse(text) as unknown[];
    const skeleton = this.skeletons[leaves[0] as number];
    if (!skeleton) throw new Error(`unknown result shape in "${text.slice(0, 20)}"`);
    return join(skeleton, leaves, { i: 1 });
  }
}

/** Walks `obj`'s keys from `at`, collecting its leaf values in order; returns where its shape ends. */
function walk(at: Step, obj: Record<string, unknown>, leaves: unknown[]): Step {
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    if (isObject(v)) at = walk(at.open(k), v, leaves).close();
    else {
      at = at.leaf(k);
      leaves.push(v);
    }
  }
  return at;
}

function skeletonOf(obj: Record<string, unknown>): Skeleton {
  // No prototype: a key such as `__proto__` (JSON.parse makes it an own key) is a key like any other.
  const skeleton = Object.create(null) as Skeleton;
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    skeleton[k] = isObject(v) ? skeletonOf(v) : 0;
  }
  return skeleton;
}

function join(skeleton: Skeleton, leaves: unknown[], at: { i: number }): Result {
  const out: Result = {};
  for (const k of Object.keys(skeleton)) {
    const s = skeleton[k];
    const value = s === 0 || s === undefined ? leaves[at.i++] : join(s, leaves, at);
    if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out;
}
