import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isValidSlug } from '../../../domain/common/slug.js';
import { CliError, EXIT, terminalSafe } from '../../output.js';

/** A value from the server shown in a message: terminal-safe and short. */
const shown = (value: unknown) => JSON.stringify(terminalSafe(String(value)).slice(0, 120));

/**
 * The file `<dir>/<slug>.md` for a prompt whose slug came from a server, or a CliError: the slug must pass
 * the domain's slug rule (lowercase letters and digits in hyphen-joined words, at most 100 characters — so
 * no `/`, `\`, `..`, NUL, drive letters or absolute paths), and, as a second wall in case that rule ever
 * loosens, the resolved path must be a direct child of the directory. A hostile or broken server can thus
 * never make `pull` or `edit` write outside the directory.
 */
export function promptFilePath(dir: string, slug: unknown): string {
  if (typeof slug !== 'string' || !isValidSlug(slug)) {
    throw new CliError(`the server sent an invalid prompt slug ${shown(slug)}; nothing was written`, EXIT.failure);
  }
  const name = `${slug}.md`;
  const root = resolve(dir);
  const file = resolve(root, name);
  const rel = relative(root, file);
  if (dirname(file) !== root || basename(file) !== name || rel !== name || isAbsolute(rel)) {
    throw new CliError(`the prompt slug ${shown(slug)} points outside ${dir}; nothing was written`, EXIT.failure);
  }
  return join(dir, name);
}
