import net from 'node:net';

/**
 * A PostgreSQL URL on a port of 127.0.0.1 that nothing listens on (taken, then freed): a
 * script that connects fails at once, one that must refuse before connecting never notices.
 */
export async function unreachablePostgres(userinfo = 'booking'): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `postgres://${userinfo}@127.0.0.1:${port}/booking`;
}
