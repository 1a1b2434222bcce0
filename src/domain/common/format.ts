/**
 * `12,345` for messages. Not `toLocaleString`: its first call loads ICU's number formatting (~20 ms), and
 * the schemas format their limits while the modules load, so it sat on every start-up (issue 15).
 */
export const formatCount = (n: number): string => {
  const [whole = '', fraction] = String(n).split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign ? whole.slice(1) : whole;
  let grouped = '';
  for (let end = digits.length; end > 0; end -= 3)
    grouped = digits.slice(Math.max(0, end - 3), end) + (grouped ? `,${grouped}` : '');
  return sign + grouped + (fraction === undefined ? '' : `.${fraction}`);
};
