import type { ScoreParts as Parts } from '../../../src/contract';

import { TableScroll } from './TableScroll';

const PARTS = [
  ['keyword', 'Keyword match'],
  ['project', 'Project proximity'],
  ['priority', 'Priority'],
  ['recency', 'Recency of use'],
] as const;

const fixed = (value: number) => value.toFixed(3);

/** How a memory's search score is made: each part, its weight and what it adds. */
export function ScoreParts({ parts }: { parts: Parts }) {
  return (
    <div>
      <TableScroll label="Score breakdown">
        <table className="table table-compact" data-testid="memory-score-parts">
          <caption className="visually-hidden">Score breakdown</caption>
          <thead>
            <tr>
              <th scope="col">Part</th>
              <th scope="col">Value</th>
              <th scope="col">Weight</th>
              <th scope="col">Adds</th>
            </tr>
          </thead>
          <tbody>
            {PARTS.map(([key, label]) => (
              <tr key={key}>
                <th scope="row">{label}</th>
                <td>{fixed(parts[key])}</td>
                <td>{fixed(parts.weights[key])}</td>
                <td>{fixed(parts[key] * parts.weights[key])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p className="hint">Raw BM25 keyword score: {fixed(parts.bm25)}</p>
    </div>
  );
}
