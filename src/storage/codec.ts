/** Value conversions that make SQLite and PostgreSQL rows read the same. */
export const readBool = (value: unknown): boolean => value === true || value === 1 || value === '1';

/** 0/1 is accepted by SQLite (which has no boolean) and by PostgreSQL's boolean input alike. */
export const writeBool = (value: boolean): number => (value ? 1 : 0);

export const readJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

export const writeJson = (value: unknown): string => JSON.stringify(value);

/** PostgreSQL returns bigint counts as strings. */
export const readCount = (value: unknown): number => Number(value ?? 0);

/** Escapes LIKE wildcards so user text matches literally (with `ESCAPE '\'`). */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
