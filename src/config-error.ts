/** A bad environment: every problem in one message (kept apart from config.ts so the CLI loads it cheaply). */
export class ConfigError extends Error {}
