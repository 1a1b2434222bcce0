/**
 * JSON columns as the drivers return them: parsed objects (PostgreSQL jsonb) go back as text, which both
 * databases take. Dates and binary values pass as they are.
 */
export const isJsonValue = (value: unknown): value is object =>
  value !== null && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value);
