import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hourAxis } from './chart-axis';

const HOUR = 3_600_000;
const hoursFrom = (first: number, count: number) => Array.from({ length: count }, (_, index) => first + index * HOUR);
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham'];

describe('hourAxis', () => {
  it('labels 48 hours that cross midnight with distinct times and dates', () => {
    // 2026-03-10 05:00 UTC to 2026-03-12 04:00 UTC, labelled every 24 hours: before, each midnight repeated
    // the same time and nothing said which day it was.
    const labels = hourAxis(hoursFrom(Date.UTC(2026, 2, 10, 5), 48), { every: 24, locale: 'en-US', timeZone: 'UTC' });
    expect(labels).toEqual([
      { index: 19, time: '12:00 AM', date: 'Mar 11' },
      { index: 43, time: '12:00 AM', date: 'Mar 12' },
    ]);
  });

  it('labels local hours that are multiples of the step, counted in the given time zone', () => {
    const starts = hoursFrom(Date.UTC(2026, 2, 10, 5), 12);
    expect(hourAxis(starts, { every: 6, locale: 'en-GB', timeZone: 'UTC' })).toEqual([
      { index: 1, time: '6:00' },
      { index: 7, time: '12:00' },
    ]);
    // 05:00 UTC is 06:00 in Berlin (winter time).
    expect(hourAxis(starts, { every: 6, locale: 'en-GB', timeZone: 'Europe/Berlin' })[0]).toEqual({
      index: 0,
      time: '6:00',
    });
  });

  it('leaves the date out while the bars stay within one day', () => {
    const labels = hourAxis(hoursFrom(Date.UTC(2026, 2, 10, 0), 24), { every: 6, locale: 'en-US', timeZone: 'UTC' });
    expect(labels.map((label) => label.time)).toEqual(['12:00 AM', '6:00 AM', '12:00 PM', '6:00 PM']);
    expect(labels.every((label) => label.date === undefined)).toBe(true);
  });

  it('labels an hour that comes twice when the clocks go back only once', () => {
    // Havana went back from 01:00 to 00:00 on 2025-11-02: midnight came twice.
    const labels = hourAxis(hoursFrom(Date.UTC(2025, 10, 2, 0), 12), {
      every: 3,
      locale: 'en-US',
      timeZone: 'America/Havana',
    });
    const texts = labels.map((label) => `${label.time} ${label.date}`);
    expect(new Set(texts).size).toBe(texts.length);
  });

  it('never repeats a label, and dates every label of a window that spans days (any zone, start and step)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2020, 0, 1) / HOUR, max: Date.UTC(2035, 0, 1) / HOUR }),
        fc.integer({ min: 1, max: 96 }),
        fc.constantFrom(3, 6, 12, 24),
        fc.constantFrom(...ZONES),
        (firstHour, count, every, timeZone) => {
          const starts = hoursFrom(firstHour * HOUR, count);
          const labels = hourAxis(starts, { every, locale: 'en-US', timeZone });
          const texts = labels.map((label) => `${label.time} ${label.date ?? ''}`);
          expect(new Set(texts).size).toBe(texts.length);
          const days = new Set(starts.map((start) => new Date(start).toLocaleDateString('en-US', { timeZone })));
          for (const label of labels) expect(label.date !== undefined).toBe(days.size > 1);
          const indices = labels.map((label) => label.index);
          expect(indices).toEqual([...indices].sort((a, b) => a - b));
          if (count >= 24) expect(labels.length).toBeGreaterThanOrEqual(1);
        },
      ),
    );
  });
});
