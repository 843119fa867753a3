// A server that answers every POST with the same LRN answer and nothing else: the cheapest
// possible service, so a benchmark of the client's CPU is not bounded by the server. A GET answers
// how many POSTs each Authorization header sent (clients running at once are told apart by their
// keys). Prints `listening <port>` and serves until killed.
import { createServer } from 'node:http';

const body = Buffer.from('{"lrn":"12015550123","lrn_activated_at":"2018-06-26T22:40:24-05:00"}');
const sent = {};
const server = createServer((req, res) => {
  if (req.method === 'GET') return res.end(JSON.stringify(sent));
  const key = req.headers.authorization ?? '';
  sent[key] = (sent[key] ?? 0) + 1;
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
