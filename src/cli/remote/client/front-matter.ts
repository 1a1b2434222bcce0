import { parse, stringify } from 'yaml';
import { CliError, EXIT } from '../../output.js';

export interface Document {
  /** The YAML mapping between the `---` lines; undefined when the text has no front matter. */
  data: Record<string, unknown> | undefined;
  /** Everything after the closing `---` line, byte for byte. */
  body: string;
}

const OPENING = /^---\r?\n/;
const CLOSING = /^---[ \t]*\r?$/m;

/**
 * Splits Markdown with YAML front matter. The front matter is the text between a first line `---` and the
 * next line `---`; anything after that line is the body, untouched (so `---` lines inside the body are safe).
 */
export function parseFrontMatter(text: string, where = 'file'): Document {
  const opening = OPENING.exec(text);
  if (!opening) return { data: undefined, body: text };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { data: undefined, body: text };
  const yaml = rest.slice(0, closing.index);
  let end = closing.index + closing[0].length;
  if (rest[end] === '\n') end += 1;
  let data: unknown;
  try {
    data = yaml.trim() === '' ? {} : parse(yaml);
  } catch (error) {
    throw new CliError(
      `${where}: the front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
      EXIT.usage,
    );
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new CliError(`${where}: the front matter must be a YAML mapping (key: value lines)`, EXIT.usage);
  }
  return { data: data as Record<string, unknown>, body: rest.slice(end) };
}

/**
 * `---\n<yaml>---\n<body>`; long strings are never folded, so the file diffs cleanly, and multi-line strings
 * are double-quoted with escapes: the yaml library's block scalars lose whitespace-only lines ("  \n" came
 * back as "\n"), a double-quoted string round-trips exactly.
 */
export function serializeFrontMatter(data: Record<string, unknown>, body: string): string {
  return `---\n${stringify(data, { lineWidth: 0, minContentWidth: 0, blockQuote: false })}---\n${body}`;
}
