import { useState } from 'react';
import type { Usage } from '../../../src/contract';
import { api } from '../api';
import { type Bar, BarChart } from '../components/BarChart';
import { SelectField } from '../components/Field';
import { EmptyState, Loaded } from '../components/Status';
import { Table } from '../components/TableScroll';
import { formatNumber, formatUntil, plural, pluralNoun } from '../format';
import { useResource, useTitle } from '../hooks';
import { href } from '../router';

const HOURS = 48;
const HOUR_MS = 3_600_000;
const ALL = '';
const resetFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** One bar per hour for the last 48 hours (oldest first), counting every key or one. */
function hourlyBars(usage: Usage, keyId: string, now: number): Bar[] {
  const firstHour = Math.floor(now / HOUR_MS) * HOUR_MS - (HOURS - 1) * HOUR_MS;
  const bars: Bar[] = Array.from({ length: HOURS }, (_, index) => ({ start: firstHour + index * HOUR_MS, count: 0 }));
  for (const entry of usage.hours) {
    if (keyId !== ALL && entry.key_id !== keyId) continue;
    const index = Math.floor((Date.parse(entry.hour_start) - firstHour) / HOUR_MS);
    const bar = bars[index];
    if (bar) bar.count += entry.count;
  }
  return bars;
}

interface KeyUsage {
  id: string;
  name: string;
  total: number;
}

/** The keys that appear in the usage, with their names and totals, by name. */
function keysIn(usage: Usage): KeyUsage[] {
  const keys = new Map<string, KeyUsage>();
  for (const entry of usage.hours) {
    if (!entry.key_id) continue;
    const key = keys.get(entry.key_id) ?? { id: entry.key_id, name: entry.key_name ?? entry.key_id, total: 0 };
    key.total += entry.count;
    keys.set(entry.key_id, key);
  }
  return [...keys.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function UsagePage() {
  useTitle('Usage');
  const usage = useResource('usage', (signal) => api.usage(HOURS, signal));
  const [keyId, setKeyId] = useState(ALL);

  return (
    <section className="page">
      <div className="page-head">
        <h1>Usage</h1>
        <button type="button" className="button" onClick={usage.reload} disabled={usage.loading}>
          Refresh
        </button>
      </div>
      <Loaded resource={usage} loading="Loading usage…">
        {(data) => <UsageView usage={data} keyId={keyId} onKey={setKeyId} />}
      </Loaded>
    </section>
  );
}

function UsageView({ usage, keyId, onKey }: { usage: Usage; keyId: string; onKey: (id: string) => void }) {
  const now = Date.now();
  const keys = keysIn(usage);
  const selected = keyId === ALL || keys.some((key) => key.id === keyId) ? keyId : ALL;
  const bars = hourlyBars(usage, selected, now);
  const total = bars.reduce((sum, bar) => sum + bar.count, 0);
  const peak = Math.max(0, ...bars.map((bar) => bar.count));
  const keyName = keys.find((key) => key.id === selected)?.name;
  const current = usage.window;
  const used = current.limit > 0 ? Math.min(100, (current.count / current.limit) * 100) : 0;

  return (
    <>
      <section className="card" aria-labelledby="window-heading">
        <h2 id="window-heading">This hour</h2>
        <p className="big-number" data-testid="usage-window">
          {formatNumber(current.count)} <span className="of">of {plural(current.limit, 'request')}</span>
        </p>
        <meter
          className="meter"
          min={0}
          max={Math.max(1, current.limit)}
          low={current.limit * 0.75}
          high={current.limit * 0.9}
          optimum={0}
          value={current.count}
          aria-label="Share of the hourly limit used"
        >
          {Math.round(used)}%
        </meter>
        <p className="hint">
          {formatNumber(current.remaining)} left. The count starts again at {resetFormat.format(current.reset * 1000)} (
          {formatUntil(current.reset * 1000, now)}). The limit covers all your keys, REST and MCP together.
        </p>
      </section>
      <section className="card" aria-labelledby="hours-heading">
        <div className="page-head">
          <h2 id="hours-heading">Requests per hour, last {HOURS} hours</h2>
          <SelectField label="Key" value={selected} onChange={onKey} testId="usage-key">
            <option value={ALL}>All keys</option>
            {keys.map((key) => (
              <option key={key.id} value={key.id}>
                {key.name}
              </option>
            ))}
          </SelectField>
        </div>
        <p className="big-number">
          <span data-testid="usage-total">{formatNumber(total)}</span>{' '}
          <span className="of">
            {pluralNoun(total, 'request')}
            {keyName ? ` with “${keyName}”` : ''}
          </span>
        </p>
        {total === 0 ? (
          <EmptyState title="No requests in the last 48 hours">
            Requests made with your <a href={href(['settings', 'keys'])}>API keys</a> show up here within a minute or
            so.
          </EmptyState>
        ) : null}
        <BarChart
          bars={bars}
          label={`Requests per hour over the last ${HOURS} hours${keyName ? ` with ${keyName}` : ''}: ${plural(total, 'request')} in all, at most ${formatNumber(peak)} in one hour.`}
        />
      </section>
      {keys.length > 0 && (
        <section className="card" aria-labelledby="by-key-heading">
          <h2 id="by-key-heading">By key, last {HOURS} hours</h2>
          <Table label="Requests by key" columns={['Key', 'Requests', 'Chart']} testId="usage-by-key">
            {keys.map((key) => (
              <tr key={key.id} aria-current={key.id === selected ? 'true' : undefined}>
                <th scope="row">{key.name}</th>
                <td>{formatNumber(key.total)}</td>
                <td>
                  <button
                    type="button"
                    className="button button-small"
                    onClick={() => onKey(key.id === selected ? ALL : key.id)}
                    aria-pressed={key.id === selected}
                  >
                    {key.id === selected ? 'Show all keys' : 'Show in chart'}
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        </section>
      )}
    </>
  );
}
