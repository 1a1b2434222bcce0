// The baseline: a bare node:http server answering the same JSON a prompt list returns.
import { createServer } from 'node:http';

const body = process.argv[3] ?? '{}';
createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  response.end(body);
}).listen(Number(process.argv[2]), '127.0.0.1', () => process.send?.('ready'));
