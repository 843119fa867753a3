// Names for temporary files. Both users create them with the exclusive flag ('wx'), so a name
// needs to be unlikely, not unguessable: this keeps node:crypto out of every start-up.
export function tempSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}
