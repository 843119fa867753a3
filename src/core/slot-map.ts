// A Map for values that come and go thousands of times a second (a bulk run's lookups in flight),
// whose values must not outlive their delete. Values held in a Map itself kept reaching the old
// generation after their delete, each taking along what it refers to (a lookup's row and answer),
// for the full collections to sweep. `node bench/gc-promotion.js`: the CLI moved ~730 bytes a row
// to the old generation before, ~180 now (a bare undici loop's), with this, the dispatcher's queue
// emptying its slots, rows admitted as their requests can leave (runner.ts) and CSV lines split as
// they are taken; a variant of the build with all but this one still moved ~690. So the Map holds
// only slot numbers, and the values sit in an array whose slot is emptied at the delete.
export class SlotMap<K, V> {
  private readonly slotOf = new Map<K, number>();
  private readonly slots: (V | undefined)[] = [];
  /** Emptied slots, reused before the array grows. */
  private readonly free: number[] = [];

  get(key: K): V | undefined {
    const slot = this.slotOf.get(key);
    return slot === undefined ? undefined : this.slots[slot];
  }

  set(key: K, value: V): void {
    let slot = this.slotOf.get(key);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.slots.length;
      this.slotOf.set(key, slot);
    }
    this.slots[slot] = value;
  }

  delete(key: K): void {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return;
    this.slotOf.delete(key);
    this.slots[slot] = undefined;
    this.free.push(slot);
  }
}
