/** pino, structured: one logger for the process; children carry their component. */
import { pino, type Logger } from 'pino';

/** Log level from FORGE_LOG_LEVEL; `info` by default so every page call is on record. */
const LEVEL = process.env.FORGE_LOG_LEVEL ?? 'info';

export const log: Logger = pino({ level: LEVEL, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: false }));

export type { Logger };
