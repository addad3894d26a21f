/**
 * A slow network between a client and the server, for real: a TCP relay on loopback that holds
 * every byte from the server for `delayMs` (changeable on the way) before passing it on; the
 * client's bytes go straight through. A page loaded through it sees the server's answers late, as
 * a phone on a far network does. `down(true)` drops the network: every connection through the link
 * is cut and new ones are refused until `down(false)`.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface SlowLink { port: number; delayMs: number; down(on: boolean): void; close(): Promise<void> }

export async function slowLink(targetPort: number, delayMs: number): Promise<SlowLink> {
  const sockets = new Set<Socket>();
  let link: SlowLink;
  let isDown = false;
  const server: Server = createServer((client) => {
    if (isDown) { client.destroy(); return; }
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    // One chain per connection: a shorter delay set later never lets bytes pass earlier ones.
    let last = 0;
    const later = (fn: () => void): void => {
      last = Math.max(last, Date.now() + link.delayMs);
      setTimeout(fn, last - Date.now());
    };
    upstream.on('data', (chunk) => later(() => { if (!client.destroyed) client.write(chunk); }));
    upstream.on('end', () => later(() => client.end()));
    const drop = (): void => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  link = {
    port,
    delayMs,
    down: (on) => {
      isDown = on;
      if (on) for (const s of sockets) s.destroy();
    },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  return link;
}
