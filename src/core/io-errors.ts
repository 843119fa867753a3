// File and stream failures in words: the user reads "no space left on device", not an errno
// dump. Read and write errors share the table so one code is always said the same way.

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  ETXTBSY: 'the file is busy',
  EBADF: 'the stream is not open',
};

/** The error's code, when it has a string one (`ENOSPC`, `EPIPE`, ...). */
export function errnoCode(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Why an I/O operation failed, in words; the error's own message for a code not in the table. */
export function ioReason(err: unknown): string {
  const code = errnoCode(err);
  return (code !== undefined ? REASONS[code] : undefined) ?? (err instanceof Error ? err.message : String(err));
}

/** The reason in words with the code for a search: "no such file (ENOENT)". */
export function ioReasonWithCode(err: unknown): string {
  const code = errnoCode(err);
  return `${ioReason(err)}${code?.startsWith('E') ? ` (${code})` : ''}`;
}
