import { type Logger, pino } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** The process logger (JSON lines), shared by the HTTP app and background work; credentials redacted. */
export function createLogger(config: Pick<Config, 'logLevel'>, options: { stderr?: boolean } = {}): Logger {
  const settings = {
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
  };
  // Operator commands print their results on stdout; their logs go to stderr.
  return options.stderr ? pino(settings, pino.destination(2)) : pino(settings);
}

/** Calls `report` at most once per `intervalMs`, counting what it skipped. */
export function throttled(intervalMs: number, report: (error: unknown, suppressed: number) => void) {
  let last = 0;
  let suppressed = 0;
  return (error: unknown) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    last = now;
    report(error, suppressed);
    suppressed = 0;
  };
}
