// The benchmark's floor: a bare `node:http` server in a process of its own
// that answers `GET /<n>` with n bytes already in memory (one write with a
// Content-Length, like ours). Timed the same way as our server and
// Placement, it shows what the socket alone costs on this machine for a
// body of a given size, and so the best ratio against Placement that any
// HTTP server could reach here. Prints "LISTENING <url>"; stops on SIGTERM.
import { createServer } from 'node:http';

const bodies = new Map<number, Buffer>();
const server = createServer((req, res) => {
  const size = Number((req.url ?? '/').slice(1));
  if (!Number.isSafeInteger(size) || size < 0 || size > 64 * 1024 * 1024) {
    res.writeHead(404, { 'content-length': 0 }).end();
    return;
  }
  let body = bodies.get(size);
  if (body === undefined) {
    body = Buffer.alloc(size, 0x20);
    bodies.set(size, body);
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': size });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object')
    process.stdout.write(`LISTENING http://127.0.0.1:${address.port}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
