/** Where an import made inside libphonenumber-js should go instead; undefined: where it says. */
export function libphonenumberPath(specifier: string, importer: string | undefined): string | undefined;

/** The same as an esbuild plugin. */
export const libphonenumberEsbuildPlugin: import('esbuild').Plugin;
