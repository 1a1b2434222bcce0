const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const number = new Intl.NumberFormat();

export function formatDate(iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

export const formatNumber = (value: number): string => number.format(value);

// The dashboard's words are English, so the plural rule is English whatever the number format's locale.
const englishPlural = new Intl.PluralRules('en');

/** The form of a noun that goes with `count`: "request" for 1, "requests" otherwise. */
export function pluralNoun(count: number, one: string, other = `${one}s`): string {
  return englishPlural.select(count) === 'one' ? one : other;
}

/** A count with its noun, "1 request", "2 requests", "1,024 requests": every count shown goes through this. */
export const plural = (count: number, one: string, other?: string): string =>
  `${formatNumber(count)} ${pluralNoun(count, one, other)}`;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** "in 12 min", "in 1 h 5 min" from now to an epoch-millisecond instant. */
export function formatUntil(epochMs: number, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((epochMs - now) / 60_000));
  if (minutes < 1) return 'in less than a minute';
  if (minutes < 60) return `in ${minutes} min`;
  return `in ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** "a, b , c" → ["a", "b", "c"], empty entries and duplicates dropped. */
export function splitList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
}
