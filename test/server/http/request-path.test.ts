import { describe, expect, it } from 'vitest';
import { requestPath } from '../../../src/server/http/request-path.js';
import { chatApp, chatRequest } from '../../support/server-support.js';

const URLS = [
  'http://app.test/api/chat',
  'https://app.test:8443/api/chat?x=1&y=%20',
  'http://app.test',
  'http://app.test?only=query',
  'http://app.test/a?',
  'http://app.test/a?#frag',
  'http://app.test/a#frag?not-query',
  'http://app.test/a?q=1#frag',
  'http://[::1]:3000/api/chat?x',
  'http://app.test/a/../b/./c',
  'http://app.test/é?q=ü',
  'HTTP://APP.TEST/A%2fB?%3F',
  'http://app.test/a b?c d',
  'http://app.test//double//slash',
];

/** A Request of another implementation: its own class, its `url` as it was given. */
class ForeignRequest extends Request {
  readonly #url: string;
  constructor(url: string) {
    super(url);
    this.#url = url;
  }
  override get url(): string {
    return this.#url;
  }
}

describe('requestPath', () => {
  it.each(URLS)('reads the path and query new URL reads from a Request for %s', (url) => {
    const { pathname, search } = new URL(url);
    expect(requestPath(new Request(url))).toEqual({ pathname, search });
  });

  it('parses the URL of a Request whose class gives a url of its own, as given', () => {
    const url = 'http://app.test/a/../b?c#d';
    const { pathname, search } = new URL(url);
    expect(requestPath(new ForeignRequest(url))).toEqual({ pathname, search });
  });
});

describe('the handler: which request is which intent', () => {
  it('answers a send that differs only in its fragment as the same intent, and one with another query as a reused ID', async () => {
    const app = chatApp();
    expect((await app.handle(chatRequest({ path: '/api/chat?x=1' }))).status).toBe(200);
    const again = await app.handle(chatRequest({ path: '/api/chat?x=1#again' }));
    expect(again.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect((await app.handle(chatRequest({ path: '/api/chat?x=2' }))).status).toBe(422);
    expect(app.calls).toHaveLength(1);
  });
});
