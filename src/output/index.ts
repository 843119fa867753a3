// The output side: sinks, progress line and closing summary.
export { createSink } from './sink.js';
export type { OutputFormat, OutputLayout, SinkStyle } from './layout.js';
export { OUTPUT_FORMATS } from './layout.js';
export { csvHeader, csvPlan } from './csv-layout.js';
export { OutputClosedError, isOutputClosed, writeText } from './stream-write.js';
export { createProgress, type Progress } from './progress.js';
export { formatSummary, formatElapsed, formatRate } from './summary.js';
