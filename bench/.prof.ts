import { createIdempotencyHandler, MemoryStore } from 'answer-once/server';
const scope = () => ({ user: 'bench-user' });
async function bare(request: Request): Promise<Response> {
  const { question } = (await request.json()) as { question: string };
  return Response.json({ answer: `echo: ${question}` });
}
const handle = createIdempotencyHandler({ store: new MemoryStore({ maxEntries: 100_000 }), scope, handler: bare });
const chat = (id: string) => new Request('http://bench.test/api/chat', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Request-Id': id }, body: JSON.stringify({ question: 'What is the capital of France?' }) });
const mode = process.argv[2] ?? 'first';
await (await handle(chat('bench-replay-0000'))).arrayBuffer();
for (let n = 0; n < 30000; n += 1) await (await handle(chat(mode === 'first' ? `bench-${String(n).padStart(12, '0')}` : 'bench-replay-0000'))).arrayBuffer();
