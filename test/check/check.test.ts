import { serve } from 'answer-once/server/node';
import { afterEach, describe, expect, it } from 'vitest';
import { CASES } from '../../src/check/cases/index.js';
import { type CheckReport, runCheck } from '../../src/check/runner.js';
import {
  type CheckedServer,
  signedIn,
  startNaiveServer,
  startPlainServer,
  startReferenceServer,
} from '../support/check-servers.js';

const STREAM_CASES = ['resume', 'past-the-end', 'stop'];
/** The intents a whole run sends and has answered (the ID cases' refusals run nothing). */
const INTENTS = 12;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function started(server: Promise<CheckedServer>): Promise<CheckedServer> {
  open.push(await server);
  return server;
}

const check = (server: CheckedServer, options: { otherHeaders?: [string, string][] } = {}) =>
  runCheck({ url: server.url, headers: signedIn('alice'), otherHeaders: signedIn('bob'), ...options });

const ids = (report: CheckReport, outcome: 'pass' | 'fail' | 'skip') =>
  report.results.filter((result) => result.outcome === outcome).map((result) => result.id);

describe('answer-once check', { timeout: 60_000 }, () => {
  it('passes every case against the reference server over MemoryStore', async () => {
    const server = await started(startReferenceServer());
    const report = await check(server);

    expect(report.results.filter((result) => result.outcome !== 'pass')).toEqual([]);
    expect(ids(report, 'pass')).toEqual(CASES.map((checkCase) => checkCase.id));
    // One model call per intent the cases sent: 12 (the scope case sends one per identity).
    expect(server.calls()).toBe(INTENTS);
  });

  it('fails a server that dedupes naively on the duplicates during work (§ 6.1, § 6.2): they ran the model again', async () => {
    const server = await started(startNaiveServer());
    const report = await check(server);

    expect(ids(report, 'fail')).toEqual(['duplicate-in-progress', 'prefer-wait']);
    expect(server.calls()).toBe(INTENTS + 2);
    for (const result of report.results.filter((each) => each.outcome === 'fail')) {
      expect(result.detail).toMatch(/^both sends ran the work .*: a duplicate during work ran it again$/);
    }
    // It keeps no answer logs: the streamed-answer cases do not apply, and say why.
    expect(ids(report, 'skip')).toEqual(STREAM_CASES);
    expect(report.results.find((result) => result.id === 'resume')?.detail).toContain(
      'no X-Idempotent-Generation: the server keeps no answer log (§ 14.11)',
    );
  });

  it('fails a server whose replays are not the first answer byte for byte, though flagged so', async () => {
    const server = await started(startNaiveServer({ rerun: true }));
    const report = await check(server);

    const replay = report.results.find((result) => result.id === 'replay');
    expect(replay?.outcome).toBe('fail');
    expect(replay?.detail).toMatch(
      /^the duplicate send is not the first answer byte for byte: 192 bytes where 192 were expected, parting at byte \d+ /,
    );
  });

  it('fails a resume that hands a byte twice (a front that moves Last-Event-ID back 10 bytes)', async () => {
    const front = (request: Request) => {
      const position = request.headers.get('Last-Event-ID')?.split('.');
      if (request.method !== 'POST' || !position) return request;
      const headers = new Headers(request.headers);
      headers.set('Last-Event-ID', `${position[0]}.${Number(position[1]) - 10}`);
      return new Request(request, { headers });
    };
    const server = await started(startReferenceServer(undefined, { front }));
    const resume = CASES.filter((checkCase) => checkCase.id === 'resume');
    const report = await runCheck({ url: server.url, headers: signedIn('alice') }, resume);

    expect(report.results[0]?.outcome).toBe('fail');
    const [, got, expected] =
      /are not the answer: (\d+) bytes where (\d+) were expected/.exec(report.results[0]!.detail) ?? [];
    expect(Number(got) - Number(expected)).toBe(10);
  });

  it('fails a plain handler without answer-once on every case it can check', async () => {
    const report = await check(await started(startPlainServer()));

    expect(ids(report, 'pass')).toEqual([]);
    expect(ids(report, 'fail')).toEqual(CASES.map((checkCase) => checkCase.id).filter((id) => !STREAM_CASES.includes(id)));
    expect(report.results.find((result) => result.id === 'replay')?.detail).toBe(
      'the duplicate send was answered 200 (text/event-stream, 192 bytes), not the first answer replayed (X-Idempotent-Replayed: true, § 7.3)',
    );
    expect(ids(report, 'skip')).toEqual(STREAM_CASES);
  });

  it('skips, saying why, what a server answering JSON at once offers nothing for', async () => {
    const report = await check(await started(startReferenceServer(undefined, { json: true })));

    expect(ids(report, 'fail')).toEqual([]);
    const detail = (id: string) => report.results.find((result) => result.id === id)?.detail;
    for (const id of ['resume', 'stop']) {
      expect(detail(id)).toBe('the answer is not an event stream (Content-Type: application/json)');
    }
    // The answer is there before a duplicate arrives: unless it is caught before its record is written, nothing is in progress.
    for (const id of ['duplicate-in-progress', 'prefer-wait']) {
      const result = report.results.find((each) => each.id === id)!;
      if (result.outcome === 'skip')
        expect(result.detail).toMatch(/^the first answer was complete before the duplicate arrived/);
    }
    expect(detail('past-the-end')).toBe('Range at the end: 416 (not an event stream: no Last-Event-ID)');
  });

  it('skips the scope case, saying why, without a second identity', async () => {
    const server = await started(startReferenceServer());
    const scope = CASES.filter((checkCase) => checkCase.id === 'other-scope');
    const report = await runCheck({ url: server.url, headers: signedIn('alice') }, scope);

    expect(report.results).toMatchObject([
      { id: 'other-scope', outcome: 'skip', detail: 'needs a second identity: give its credentials with --other-header' },
    ]);
  });

  it('finds the status route where statusPath says', async () => {
    const server = await started(startReferenceServer(undefined, { statusPath: '/v1/intents' }));
    const statusRoute = CASES.filter((checkCase) => checkCase.id === 'status-route');
    const options = { url: server.url, headers: signedIn('alice') };

    const elsewhere = await runCheck({ ...options, statusPath: '/v1/intents/' }, statusRoute);
    expect(elsewhere.results[0]).toMatchObject({ outcome: 'pass' });
    const atTheDefault = await runCheck(options, statusRoute);
    expect(atTheDefault.results[0]?.detail).toMatch(/^GET \/api\/status\/\w+ was answered 400 .*missing-request-id/);
  });

  it('ends a case that hangs at its deadline, failing it with the request it waited for', async () => {
    const hanging = await serve(() => new Promise<Response>(() => {}));
    open.push(hanging);
    const cases = CASES.filter((checkCase) => checkCase.id === 'replay' || checkCase.id === 'duplicate-in-progress');
    const started = Date.now();
    const report = await runCheck({ url: `${hanging.url}/api/chat`, timeoutMs: 2_000, waitSeconds: 1 }, cases);

    expect(report.results.map(({ outcome, detail }) => ({ outcome, detail }))).toEqual([
      { outcome: 'fail', detail: 'did not finish within 2000 ms (last request: POST /api/chat)' },
      { outcome: 'fail', detail: 'did not finish within 2000 ms (last request: POST /api/chat)' },
    ]);
    expect(Date.now() - started).toBeLessThan(2 * 2_000 + 1_000);
  });

  it('fails, naming the address, when nothing answers there', async () => {
    const gone = await serve(() => new Response());
    await gone.close();
    const report = await runCheck({ url: `${gone.url}/api/chat` }, CASES.slice(0, 1));

    expect(report.results[0]).toMatchObject({ outcome: 'fail', detail: `POST ${gone.url}/api/chat failed: ECONNREFUSED` });
  });
});
