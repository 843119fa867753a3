// A compact text form for finished results kept for duplicates. Results of one lookup share their
// shape (the same keys, nested the same way), so the keys are stored once per shape and each
// result keeps only its leaf values: `[<shape id>, leaf, leaf, …]`, one flat JSON string (a
// concatenation would leave V8 a rope of three strings, which costs more than it saves).
import type { Result } from '../../core/records.js';
import { isObject } from '../../core/json.js';

type Skeleton = { [key: string]: Skeleton | 0 };

export class ResultCodec {
  private readonly skeletons: Skeleton[] = [];
  private readonly ids = new Map<string, number>();

  encode(result: Result): string {
    const leaves: unknown[] = [0];
    const skeleton = split(result, leaves);
    const key = JSON.stringify(skeleton);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.skeletons.length;
      this.skeletons.push(skeleton);
      this.ids.set(key, id);
    }
    leaves[0] = id;
    return JSON.stringify(leaves);
  }

  decode(text: string): Result {
    const leaves = JSON.parse(text) as unknown[];
    const skeleton = this.skeletons[leaves[0] as number];
    if (!skeleton) throw new Error(`unknown result shape in "${text.slice(0, 20)}"`);
    return join(skeleton, leaves, { i: 1 });
  }
}

function split(obj: Record<string, unknown>, leaves: unknown[]): Skeleton {
  const skeleton: Skeleton = {};
  for (const [k, v] of Object.entries(obj)) {
    if (isObject(v)) skeleton[k] = split(v, leaves);
    else {
      skeleton[k] = 0;
      leaves.push(v);
    }
  }
  return skeleton;
}

function join(skeleton: Skeleton, leaves: unknown[], at: { i: number }): Result {
  const out: Result = {};
  for (const k of Object.keys(skeleton)) {
    const s = skeleton[k];
    out[k] = s === 0 || s === undefined ? leaves[at.i++] : join(s, leaves, at);
  }
  return out;
}
