// What an error tells the user to change, in the words of whoever is asking: the command line has
// flags, files and settings, a library caller has createClient's options. A message is written
// once, with these names in it; the command line's are the default, the library passes its own.

/** The user's name for each setting that an error's advice points to. */
export interface Advice {
  /** Where a private CA's certificate is given. */
  readonly ca: string;
  /** The per-request timeout, to raise. */
  readonly timeout: string;
  /** The longest server wait obeyed, as in "longer than … allows". */
  readonly maxWait: string;
  /** The same, as in "raise …" (with what it takes). */
  readonly raiseMaxWait: string;
  /** Where the API key is given. */
  readonly apiKey: string;
}

export const CLI_ADVICE: Advice = {
  ca: '--ca-file <pem>',
  timeout: '--timeout',
  maxWait: '--max-wait',
  raiseMaxWait: '--max-wait <seconds>',
  apiKey: 'NUMINTEL_API_KEY, --api-key-file or `numintel config set api-key`',
};

export const LIBRARY_ADVICE: Advice = {
  ca: 'its PEM as `ca`',
  timeout: '`timeoutMs`',
  maxWait: '`maxWaitMs`',
  raiseMaxWait: '`maxWaitMs`',
  apiKey: 'the `apiKey` option',
};
