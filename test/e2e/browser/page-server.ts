import { createServer, type Server } from 'node:http';

export interface PageServer {
  url: string;
  close: () => Promise<void>;
}

/**
 * The customer's site: a static server on its own port, hence another origin than the service.
 * It serves only the files it is given, by exact path.
 */
export async function startPageServer(files: Record<string, { type: string; body: string | Buffer }>): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const file = files[(req.url ?? '/').split('?', 1)[0]];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
