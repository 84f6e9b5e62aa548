// The intent's status route: GET/HEAD read the answer (a reload resumes from here),
// DELETE stops it. Served by the chat route's own handler.
import { handle } from '../../../../lib/answer-once';

export const GET = (request: Request) => handle(request);
export const HEAD = (request: Request) => handle(request);
export const DELETE = (request: Request) => handle(request);
