import { useLayoutEffect, useRef, useState } from 'react';
import { hourAxis } from '../chart-axis';
import { formatNumber, plural } from '../format';

export interface Bar {
  /** Start of the hour (epoch milliseconds). */
  start: number;
  count: number;
}

const HEIGHT = 220;
const MIN_LABEL_GAP = 64;
/** About half the width of the widest axis label ("12:00 AM"), to keep the outermost labels inside the chart. */
const HALF_LABEL = 30;
const PAD = { top: 12, right: 8, bottom: 44, left: 44 };
const dayLabel = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });

/** A round scale maximum (1, 2, 5 × 10^n) at or above `max`. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** A hand-made SVG bar chart of requests per hour. Each bar has a tooltip; the summary is in the label. */
export function BarChart({ bars, label }: { bars: Bar[]; label: string }) {
  // Drawn at the container's real width so text is never stretched.
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(720);
  // Measured before the first paint (a layout effect), so the chart is never drawn wider than its box,
  // not even for a frame; then kept in step with the box.
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    setWidth(Math.max(240, Math.floor(element.getBoundingClientRect().width)));
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(240, Math.floor(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const max = niceMax(Math.max(0, ...bars.map((bar) => bar.count)));
  const plotWidth = width - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / Math.max(1, bars.length);
  const barWidth = Math.max(1, slot * 0.75);
  const y = (value: number) => PAD.top + plotHeight - (value / max) * plotHeight;
  // A half-way line only where it is a whole number of requests.
  const ticks = Number.isInteger(max / 2) ? [0, max / 2, max] : [0, max];
  // Label every 3rd, 6th, 12th or 24th hour, whichever leaves room for the text.
  const every = [3, 6, 12, 24].find((step) => step * slot >= MIN_LABEL_GAP) ?? 24;
  const axis = hourAxis(
    bars.map((bar) => bar.start),
    { every },
  );
  const centre = (index: number) => PAD.left + index * slot + slot / 2;

  return (
    <div ref={box} className="chart-box">
      <svg
        className="chart"
        width={width}
        height={HEIGHT}
        style={{ maxWidth: '100%', height: 'auto' }}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        role="img"
        aria-label={label}
        data-testid="usage-chart"
      >
        {ticks.map((tick) => (
          <g key={tick}>
            <line className="chart-grid" x1={PAD.left} x2={width - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text className="chart-axis" x={PAD.left - 6} y={y(tick) + 4} textAnchor="end">
              {formatNumber(tick)}
            </text>
          </g>
        ))}
        {bars.map((bar, index) => {
          const top = y(bar.count);
          return (
            <rect
              key={bar.start}
              className="chart-bar"
              x={centre(index) - barWidth / 2}
              y={top}
              width={barWidth}
              height={Math.max(0, PAD.top + plotHeight - top)}
              data-count={bar.count}
            >
              <title>
                {dayLabel.format(bar.start)}: {plural(bar.count, 'request')}
              </title>
            </rect>
          );
        })}
        {axis.map((label) => {
          const x = Math.min(Math.max(centre(label.index), HALF_LABEL), width - HALF_LABEL);
          return (
            <text
              key={label.index}
              className="chart-axis"
              x={x}
              y={PAD.top + plotHeight + 16}
              textAnchor="middle"
              data-testid="usage-axis-label"
            >
              <tspan x={x}>{label.time}</tspan>
              {label.date && (
                <tspan x={x} dy="1.2em" className="chart-axis-date">
                  {label.date}
                </tspan>
              )}
            </text>
          );
        })}
      </svg>
    </div>
  );
}
