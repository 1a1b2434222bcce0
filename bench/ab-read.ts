/**
 * An interleaved A/B of the hot read (`GET /api/v1/prompts/{slug}`) between two builds or two settings
 * (docs/performance.md, session 13): both servers run at once, each pinned to core 0, and `wrk` on core 1
 * loads them in turn, A then B, for ROUNDS rounds of 3 s. Each round prints requests per second and the
 * server's CPU per request (its utime + stime from /proc over the round, so what the host steals from
 * the server's core does not count), and the medians close. Alternating in the same minute is what makes
 * a difference of 10% visible on a shared machine, where a run's ceiling moves by 20% from one hour to
 * the next.
 *
 *   git worktree add /tmp/base <commit> && (cd /tmp/base && ln -s "$PWD/node_modules" . && npm run build)
 *   A_DIR=/tmp/base npx tsx bench/ab-read.ts              the other build (A) against this one (B)
 *   B_ENV='{"LOG_LEVEL":"warn"}' npx tsx bench/ab-read.ts  one build, two environments
 *   C=10 ROUNDS=10 npx tsx bench/ab-read.ts                10 connections (50 by default), 10 rounds
 *
 * Needs wrk and taskset (Linux) and at least 2 cores.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Cairn, createReadPrompts, startCairn } from './lib.js';

const here = fileURLToPath(new URL('..', import.meta.url));
const sides = [
  { name: 'A', dir: process.env.A_DIR ?? here, env: JSON.parse(process.env.A_ENV ?? '{}') },
  { name: 'B', dir: process.env.B_DIR ?? here, env: JSON.parse(process.env.B_ENV ?? '{}') },
];
const connections = Number(process.env.C ?? 50);
const rounds = Number(process.env.ROUNDS ?? 6);
if (spawnSync('wrk', ['--version']).error) throw new Error('ab-read needs wrk (apt-get install wrk)');

/** The process's CPU time so far in µs (utime + stime, in clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const servers: Array<{ name: string; cairn: Cairn; url: string; rounds: Array<{ rate: number; cpu: number }> }> = [];
try {
  for (const side of sides) {
    const cairn = await startCairn({
      cli: join(side.dir, 'dist/cli/cairn.mjs'),
      env: side.env,
      pin: ['taskset', '-c', '0'],
    });
    servers.push({ name: side.name, cairn, rounds: [], url: '' });
    const headers = { authorization: `Bearer ${cairn.key}`, 'content-type': 'application/json' };
    (servers.at(-1) as (typeof servers)[number]).url = await createReadPrompts(cairn.base, headers);
  }
  for (let round = 0; round < rounds; round++) {
    for (const server of servers) {
      const pid = server.cairn.process.pid as number;
      const before = cpuMicros(pid);
      const out = spawnSync(
        'taskset',
        [
          '-c',
          '1',
          'wrk',
          '-t1',
          `-c${connections}`,
          '-d3s',
          '-H',
          `authorization: Bearer ${server.cairn.key}`,
          server.url,
        ],
        { encoding: 'utf8' },
      ).stdout;
      const used = cpuMicros(pid) - before;
      const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
      const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      if (!(requests > 0)) throw new Error(`wrk answered no requests:\n${out}`);
      server.rounds.push({ rate, cpu: used / requests });
    }
  }
  console.log(`GET /api/v1/prompts/{slug}, ${connections} connections, ${rounds} rounds of 3 s, A and B in turn`);
  for (const { name, rounds: measured } of servers) {
    const dir = sides.find((side) => side.name === name);
    console.log(`${name} (${dir?.dir} ${JSON.stringify(dir?.env)})`);
    console.log(`  ${measured.map((r) => `${r.rate.toFixed(0)}/s ${r.cpu.toFixed(1)} µs`).join('  ')}`);
    console.log(
      `  median ${median(measured.map((r) => r.rate)).toFixed(0)}/s, ${median(measured.map((r) => r.cpu)).toFixed(1)} µs of CPU per request`,
    );
  }
} finally {
  for (const server of servers) await server.cairn.stop();
}
