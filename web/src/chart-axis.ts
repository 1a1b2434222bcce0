// The time axis of the usage chart, as a pure function so its labels can be tested in any time zone.

export interface AxisLabel {
  /** Which bar the label sits under. */
  index: number;
  /** The hour, e.g. "4:00 AM" or "04:00" depending on the locale. */
  time: string;
  /** The day, e.g. "Jan 5": present on every label when the bars span more than one day. */
  date?: string;
}

export interface AxisOptions {
  /** Hours between labels; a divisor of 24, so midnight is always labelled. */
  every: number;
  /** BCP 47 locale (default: the browser's). */
  locale?: string;
  /** IANA time zone (default: the browser's). */
  timeZone?: string;
}

/**
 * Labels for bars that each start an hour (epoch milliseconds, oldest first): one every `every` hours of
 * local time (0:00, 6:00, 12:00, … rather than counting from whatever hour the window starts at). When the
 * bars span more than one day, every label carries its date: a time alone would repeat ("4:00 AM" today and
 * yesterday) and say nothing about which day it is.
 */
export function hourAxis(starts: number[], { every, locale, timeZone }: AxisOptions): AxisLabel[] {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
  });
  const local = (start: number) => {
    const fields = Object.fromEntries(parts.formatToParts(start).map((part) => [part.type, part.value]));
    return { day: `${fields.year}-${fields.month}-${fields.day}`, hour: Number(fields.hour) };
  };
  const time = new Intl.DateTimeFormat(locale, { timeZone, hour: 'numeric', minute: '2-digit' });
  const date = new Intl.DateTimeFormat(locale, { timeZone, month: 'short', day: 'numeric' });

  const hours = starts.map(local);
  const manyDays = new Set(hours.map((hour) => hour.day)).size > 1;
  const labels: AxisLabel[] = [];
  let previous = '';
  hours.forEach(({ day, hour }, index) => {
    // An hour that comes twice when the clocks go back is labelled once.
    if (hour % every !== 0 || `${day} ${hour}` === previous) return;
    previous = `${day} ${hour}`;
    const start = starts[index] as number;
    labels.push({ index, time: time.format(start), ...(manyDays && { date: date.format(start) }) });
  });
  return labels;
}
