/**
 * A model on a loopback HTTP port for the Workers specs (workerd reaches it with `fetch`):
 * each call streams `tokens` SSE events `data: token <i>`, one every `tokenMs`, and notes
 * how many went out and whether its caller hung up before the end.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call of the model, as its server saw it: how many tokens went out, and whether all of them did. */
interface ModelCall {
  sent: number;
  readonly ended: Promise<'whole' | 'cut'>;
}

export interface SseModel {
  readonly server: Server;
  readonly url: string;
  readonly calls: ModelCall[];
  close(): Promise<void>;
}

export async function startSseModel(tokens: number, tokenMs: number): Promise<SseModel> {
  const calls: ModelCall[] = [];
  const server = createServer((request, response) => {
    let end!: (how: 'whole' | 'cut') => void;
    const call: ModelCall = { sent: 0, ended: new Promise((resolve) => (end = resolve)) };
    calls.push(call);
    response.writeHead(200, { 'Content-Type': 'text/event-stream' });
    response.on('close', () => end(call.sent === tokens ? 'whole' : 'cut'));
    const next = (): void => {
      if (response.destroyed) return;
      if (call.sent === tokens) return void response.end();
      response.write(`data: token ${call.sent}\n\n`);
      call.sent += 1;
      setTimeout(next, tokenMs);
    };
    request.resume().on('end', next);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
