/**
 * The chat route: every POST is one attempt of one intent (its `X-Request-Id`). The rest
 * of this file is the demo's — counting requests for the footer, and the `cut` fault,
 * which breaks the next streaming answer's connection after a few events, as a flaky
 * network does; the page's `client.fetch` resumes it from the server's log.
 */
import { isValidRequestId } from 'answer-once';
import { breakAfterEvents } from '../../../../ai-sdk-chat/faults';
import { handle } from '../../../lib/answer-once';
import { demo } from '../../../lib/demo';

const CUT_AFTER_EVENTS = 12;

export async function POST(request: Request): Promise<Response> {
  demo.requests += 1;
  const id = request.headers.get('X-Request-Id') ?? '';
  if (isValidRequestId(id)) demo.intents.add(id);
  const response = await handle(request);
  const streaming =
    response.headers.get('content-type')?.includes('text/event-stream') && !response.headers.has('X-Idempotent-Replayed');
  if (demo.trouble !== 'cut' || !streaming) return response;
  demo.trouble = 'none';
  demo.cuts += 1;
  // A body that errors mid-way: Next.js aborts the response, the browser sees the connection break.
  return breakAfterEvents(response, CUT_AFTER_EVENTS, 'the connection was cut (simulated)');
}
