import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * Where import bundles are spooled. The base directory is predictable (IMPORT_SPOOL_DIR, else one per OS
 * user under the system temporary directory) and holds one subdirectory per running server,
 * `<host>.<pid>.<thread>`. So a start can remove what a crashed run left behind — the subdirectories of
 * this host whose process no longer exists, and its own name (a restarted container often gets the same
 * pid) — without touching the live files of another instance on the same machine (its process exists) or
 * on another machine sharing the directory (another host name).
 */
export interface BundleSpool {
  /** This process's subdirectory. */
  dir: string;
  /** Leftover subdirectories removed when it was prepared (empty if another server of this process did). */
  removed: string[];
  /** A fresh file name for one import's body; the caller writes it (mode 0600) and removes it. */
  file(): string;
}

export function defaultSpoolBase(): string {
  let who: string;
  try {
    who = String(process.getuid?.() ?? userInfo().username);
  } catch {
    who = 'user';
  }
  return join(tmpdir(), `cairn-import-${who.replace(/[^A-Za-z0-9_-]/g, '_')}`);
}

const safeName = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100) || 'host';

/** The subdirectory name of one server process (thread): `<host>.<pid>.<thread>`. */
export const spoolOwnerName = (pid = process.pid, thread = threadId, host = hostname()) =>
  `${safeName(host)}.${pid}.${thread}`;

/** True unless the system says no process has this pid (EPERM: it exists, owned by someone else). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Refuses a base another user could write to (or a link to elsewhere): spool files must stay private. */
async function checkPrivate(base: string): Promise<void> {
  const info = await lstat(base);
  const problem = !info.isDirectory()
    ? 'is not a directory'
    : process.platform !== 'win32' && process.getuid && info.uid !== process.getuid()
      ? 'belongs to another user'
      : process.platform !== 'win32' && (info.mode & 0o022) !== 0
        ? 'is writable by other users'
        : undefined;
  if (problem) {
    throw new Error(`The import spool directory ${base} ${problem}; remove it or set IMPORT_SPOOL_DIR`);
  }
}

async function prepare(base: string): Promise<BundleSpool> {
  await mkdir(base, { recursive: true, mode: 0o700 });
  await checkPrivate(base);
  const host = safeName(hostname());
  const own = spoolOwnerName();
  const removed: string[] = [];
  for (const entry of await readdir(base, { withFileTypes: true })) {
    const match = /^(.+)\.(\d+)\.(\d+)$/.exec(entry.name);
    if (!match || match[1] !== host) continue; // not a spool of this machine: left alone
    const pid = Number(match[2]);
    // Another thread of this process, or another live process: its files are in use.
    if (entry.name !== own && (pid === process.pid || running(pid))) continue;
    await rm(join(base, entry.name), { recursive: true, force: true });
    removed.push(entry.name);
  }
  const dir = join(base, own);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return { dir, removed, file: () => join(dir, `import-${randomBytes(12).toString('hex')}.jsonl`) };
}

/** One preparation per base directory and process: a second server in this process shares the first's. */
const prepared = new Map<string, Promise<BundleSpool>>();

/** Prepares the spool (cleaning leftovers of crashed runs) once per process, at start. */
export function openBundleSpool(configured: string | undefined): Promise<BundleSpool> {
  const base = resolve(configured ?? defaultSpoolBase());
  const earlier = prepared.get(base);
  if (earlier !== undefined) return earlier.then((spool) => ({ ...spool, removed: [] }));
  const spool = prepare(base);
  prepared.set(base, spool);
  spool.catch(() => prepared.delete(base));
  return spool;
}
