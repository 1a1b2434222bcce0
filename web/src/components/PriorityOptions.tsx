import { PRIORITIES } from '../../../src/contract';

const capitalized = (word: string) => `${word.slice(0, 1).toUpperCase()}${word.slice(1)}`;

/** The options of a memory priority select; what the empty value means is the caller's to say. */
export function PriorityOptions({ none }: { none: string }) {
  return (
    <>
      <option value="">{none}</option>
      {PRIORITIES.map((value) => (
        <option key={value} value={value}>
          {capitalized(value)}
        </option>
      ))}
    </>
  );
}
