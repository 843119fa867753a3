// Kept in step with package.json by a test (importing package.json would put it outside src/).
export const VERSION = '0.1.0';
