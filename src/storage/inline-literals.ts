/**
 * A compiled PostgreSQL statement with its parameters written into its text as literals, for the one place
 * that needs it: the simple query protocol runs several statements sent in ONE message (one round trip
 * instead of one each) but takes no parameters. Only values made of an allow-list of characters are
 * written — letters, marks and digits of any script, space and `_ : . / @ + -`: ids, hashes, timestamps,
 * analysed words, project names — never a quote, a backslash, a dollar sign or a control character, so no
 * value can end its literal. Anything else (any other character or type) answers undefined, and the caller
 * sends the statement with parameters instead. Each value is written as a quoted literal of unknown type
 * (an array as its `{…}` text), which PostgreSQL types from its context as it types a parameter.
 */
export function inlineParameters(sql: string, parameters: readonly unknown[]): string | undefined {
  const literals: string[] = [];
  for (const value of parameters) {
    const literal = literalOf(value);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  let out = '';
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i] as string;
    if (quote !== undefined) {
      // Inside a quoted literal or identifier a doubled quote is the quote itself: both halves pass here.
      if (char === quote) quote = undefined;
      out += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      out += char;
      continue;
    }
    if (char === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      let end = i + 1;
      while (/[0-9]/.test(sql[end] ?? '')) end++;
      const literal = literals[Number(sql.slice(i + 1, end)) - 1];
      if (literal === undefined) return undefined;
      out += literal;
      i = end - 1;
      continue;
    }
    // A dollar-quoted body would need a parser of its own; none of the statements sent this way has one.
    if (char === '$') return undefined;
    out += char;
  }
  return quote === undefined ? out : undefined;
}

/** Array elements are written inside `{…}` between double quotes: the same characters (no quote, no brace). */
const SAFE = /^[\p{L}\p{M}\p{N} _:./@+-]*$/u;
const MAX_LITERAL = 10_000;

function literalOf(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? `'${value}'` : undefined;
  if (typeof value === 'string') return value.length <= MAX_LITERAL && SAFE.test(value) ? `'${value}'` : undefined;
  if (Array.isArray(value)) {
    const elements: string[] = [];
    for (const element of value) {
      if (typeof element === 'number' && Number.isSafeInteger(element)) elements.push(String(element));
      else if (typeof element === 'string' && element.length <= MAX_LITERAL && SAFE.test(element)) {
        elements.push(`"${element}"`);
      } else return undefined;
    }
    return `'{${elements.join(',')}}'`;
  }
  return undefined;
}
