import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, statusRequest } from '../../support/server-support.js';

const ID = 'req-0000000001';

describe('createIdempotencyHandler: request IDs', () => {
  it('answers 400 naming the header when no ID is sent', async () => {
    const app = chatApp();
    const response = await app.handle(chatRequest({ id: null }));
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; title: string };
    expect(problem.code).toBe('missing-request-id');
    expect(problem.title).toContain('X-Request-Id');
    expect(app.calls).toHaveLength(0);
  });

  it.each(['short', 'has space 12345', 'x'.repeat(129), 'ünïcode-12345', 'a,b-12345678'])(
    'answers 400 invalid-request-id for %j',
    async (id) => {
      const app = chatApp();
      const response = await app.handle(chatRequest({ id }));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid-request-id', title: expect.stringContaining('8–128') });
      expect(app.calls).toHaveLength(0);
    },
  );

  it.each([`"${ID}`, `${ID}"`, `\u00a0${ID}`, `"${ID}"\f`])(
    'answers 400 invalid-request-id for %j in either header: a lone quote, or padding HTTP does not call whitespace',
    async (value) => {
      for (const header of ['X-Request-Id', 'Idempotency-Key']) {
        const app = chatApp();
        const response = await app.handle(chatRequest({ id: null, headers: { [header]: value } }));
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ code: 'invalid-request-id' });
        expect(app.calls).toHaveLength(0);
      }
    },
  );

  it('takes an ID padded with spaces and tabs, quoted or bare, as the same intent', async () => {
    const app = chatApp();
    const quoted = await app.handle(chatRequest({ id: null, headers: { 'Idempotency-Key': ` \t"${ID}"\t ` } }));
    expect(quoted.headers.get('X-Request-Id')).toBe(ID);
    const bare = await app.handle(chatRequest({ id: null, headers: { 'X-Request-Id': `\t ${ID} ` } }));
    expect(bare.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(app.calls).toHaveLength(1);
  });

  it('accepts Idempotency-Key as a structured-field string or bare, as one intent with X-Request-Id', async () => {
    const app = chatApp();
    const quoted = await app.handle(chatRequest({ id: null, headers: { 'Idempotency-Key': `"${ID}"` } }));
    expect(quoted.status).toBe(200);
    const bare = await app.handle(chatRequest({ id: null, headers: { 'Idempotency-Key': ID } }));
    expect(bare.headers.get('X-Idempotent-Replayed')).toBe('true');
    const both = await app.handle(chatRequest({ headers: { 'Idempotency-Key': `"${ID}"` } }));
    expect(both.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(app.calls).toHaveLength(1);
  });
});

describe('createIdempotencyHandler: an Idempotency-Key beside X-Request-Id (a browser may add its own)', () => {
  const OTHER = 'req-9999999999';

  it('names the intent by X-Request-Id: a send with a new key each time runs once and replays', async () => {
    const app = chatApp();
    const first = await app.handle(chatRequest({ headers: { 'Idempotency-Key': '"browser-key-0001"' } }));
    expect(first.status).toBe(200);
    expect(first.headers.get('X-Request-Id')).toBe(ID);
    const again = await app.handle(chatRequest({ headers: { 'Idempotency-Key': '"browser-key-0002"' } }));
    expect(again.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(app.calls).toHaveLength(1);
  });

  it('ignores a malformed Idempotency-Key beside a valid X-Request-Id, and refuses a malformed X-Request-Id whatever the key', async () => {
    const app = chatApp();
    for (const key of ['"42"', 'not a key!', `"${ID}`]) {
      const response = await app.handle(chatRequest({ headers: { 'Idempotency-Key': key } }));
      expect(response.status).toBe(200);
    }
    expect(app.calls).toHaveLength(1);
    const bad = await app.handle(chatRequest({ id: 'short', headers: { 'Idempotency-Key': `"${ID}"` } }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid-request-id' });
    expect(app.calls).toHaveLength(1);
  });

  it('never answers the intent the key names: a pair pointing at another intent runs its own and leaves that one alone', async () => {
    const app = chatApp();
    const victim = await app.handle(chatRequest({ id: OTHER, question: 'the other intent' }));
    const victimAnswer = await victim.json();
    // The key names the answered intent; X-Request-Id a new one, with another question.
    const probe = await app.handle(chatRequest({ question: 'mine', headers: { 'Idempotency-Key': `"${OTHER}"` } }));
    expect(probe.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(probe.headers.get('X-Request-Id')).toBe(ID);
    expect(await probe.json()).toEqual({ answer: 'echo: mine', run: 2 });
    // The other way round: X-Request-Id names the answered intent with another body: 422.
    const reused = await app.handle(chatRequest({ id: OTHER, question: 'mine', headers: { 'Idempotency-Key': `"${ID}"` } }));
    expect(reused.status).toBe(422);
    // Each intent still has its own answer, run once.
    const replay = await app.handle(chatRequest({ id: OTHER, question: 'the other intent' }));
    expect(await replay.json()).toEqual(victimAnswer);
    expect(app.calls).toHaveLength(2);
  });
});

describe('createIdempotencyHandler: scope', () => {
  it('gives user B sending A’s ID a run of its own, and B reading A’s status a 404', async () => {
    const app = chatApp();
    const alice = await app.handle(chatRequest({ user: 'alice', question: 'my secret' }));
    const bob = await app.handle(chatRequest({ user: 'bob', question: 'my secret' }));
    expect(bob.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(await bob.json()).toEqual({ answer: 'echo: my secret', run: 2 });
    expect(await alice.json()).toEqual({ answer: 'echo: my secret', run: 1 });
    expect(app.calls.map((call) => call.context.scope.user)).toEqual(['alice', 'bob']);

    const other = await app.handle(chatRequest({ id: 'req-alice-only', user: 'alice' }));
    expect(other.status).toBe(200);
    const probe = await app.handle(statusRequest('req-alice-only', { user: 'bob' }));
    expect(probe.status).toBe(404);
    expect(await probe.json()).toMatchObject({ code: 'intent-not-found' });
    expect((await app.handle(statusRequest('req-alice-only', { user: 'alice/other-session' }))).status).toBe(404);
    expect((await app.handle(statusRequest('req-alice-only', { user: 'alice' }))).status).toBe(200);
  });

  it('keeps (a:b, c) and (a, b:c) apart: the key-collision probe', async () => {
    const app = chatApp({
      scope: (request) => {
        const [user = '', session = ''] = (request.headers.get('Authorization') ?? '').slice(7).split('|');
        return { user, session };
      },
    });
    await app.handle(chatRequest({ user: 'a:b|c', question: 'one' }));
    const second = await app.handle(chatRequest({ user: 'a|b:c', question: 'two' }));
    expect(second.status).toBe(200);
    expect(second.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(app.calls.map((call) => call.context.key)).toEqual([
      `answer-once:{a%3Ab:c:${ID}}`,
      `answer-once:{a:b%3Ac:${ID}}`,
    ]);
  });

  it('answers with the scope’s own Response (401) and runs nothing', async () => {
    const app = chatApp();
    const response = await app.handle(chatRequest({ user: '' }));
    expect(response.status).toBe(401);
    expect(app.calls).toHaveLength(0);
    expect(app.store.size).toBe(0);
  });
});
