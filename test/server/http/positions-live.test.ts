/**
 * A position past the end of a live answer (PROTOCOL.md § 14.5): a live generation's log
 * may lag its first caller, so the reader is held — and when the generation ends shorter
 * than the position, it gets § 14.5's answer for an ended generation: the restart marker
 * and the whole answer (event streams), an aborted body (bytes). Never an empty, complete
 * answer.
 */
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate } from '../../support/server-support.js';
import { heldAfterOneEvent, heldBetween, parseEvents } from '../../support/stream-support.js';

/** A plain-text answer that sends `Once upon`, holds until `go`, then ` a time.` */
const heldText = (go: Promise<void>): Response => heldBetween('text/plain', 'Once upon', go, ' a time.');

describe('createIdempotencyHandler: a position past the end of a live answer', () => {
  it('answers Last-Event-ID past the end of a live answer that ends shorter with the restart marker and the whole answer', async () => {
    const go = gate();
    const app = chatApp({ work: () => heldAfterOneEvent(go.promise) });
    const fresh = await app.handle(chatRequest());
    const generation = fresh.headers.get('X-Idempotent-Generation');
    const freshText = fresh.text();
    const attached = await app.handle(
      chatRequest({ headers: { 'Last-Event-ID': `${generation}.100000`, Prefer: 'wait=5' } }),
    );
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    go.open();
    const text = await attached.text();
    const whole = await freshText;
    expect(parseEvents(whole).map((event) => event.data)).toEqual(['first', 'second']);
    const restart = `event: answer-once.restart\ndata: {"generation":${generation}}\nid: ${generation}.0\n\n`;
    expect(text).toBe(restart + whole);
    expect(app.calls).toHaveLength(1);
  });

  it('aborts a live answer’s body for Range: bytes=100000- when the answer ends shorter', async () => {
    const go = gate();
    const app = chatApp({ work: () => heldText(go.promise) });
    const fresh = await app.handle(chatRequest());
    const generation = fresh.headers.get('X-Idempotent-Generation') ?? '';
    const freshText = fresh.text();
    const attached = await app.handle(
      chatRequest({ headers: { Range: 'bytes=100000-', 'X-Idempotent-Generation': generation, Prefer: 'wait=5' } }),
    );
    expect(attached.status).toBe(206);
    go.open();
    await expect(attached.text()).rejects.toThrow();
    expect(await freshText).toBe('Once upon a time.');
    expect(app.calls).toHaveLength(1);
  });
});
