// Entry point: the only place (with the rest of src/cli/) that touches process.*.
import { Command } from 'commander';

export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const program = new Command('numintel');
  program.version('0.1.0');
  await program.parseAsync(argv as string[]);
}
