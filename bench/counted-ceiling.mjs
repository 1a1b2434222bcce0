// The read ceiling with an exact shared count (PostgreSQL + Redis runs of `npm run bench`): a bare
// node:http server that, like the bare ceiling, answers the same bytes from memory, but first counts each
// request in Redis the cheapest way an exact count across instances allows: the requests of one event-loop
// turn wait together for one INCRBY (one round trip per turn, O(1) work in Redis). What Cairn adds on top of
// this is its own work; what this adds to the bare ceiling is the price of api-decisions §4's exact counts.
// Usage: node counted-ceiling.mjs <port> <redis url> <body>
import { createServer } from 'node:http';
import Redis from 'ioredis';

const [port, redisUrl, body = '{}'] = process.argv.slice(2);
const redis = new Redis(redisUrl);
const key = `bench:counted-ceiling:${process.pid}`;
let waiting = [];

function answerTurn() {
  const turn = waiting;
  waiting = [];
  redis.incrby(key, turn.length).then(
    () => {
      for (const response of turn) {
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        response.end(body);
      }
    },
    (error) => {
      for (const response of turn) {
        response.writeHead(503);
        response.end(String(error));
      }
    },
  );
}

createServer((_request, response) => {
  if (waiting.length === 0) setImmediate(answerTurn);
  waiting.push(response);
}).listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => {
  redis.del(key).finally(() => process.exit(0));
});
