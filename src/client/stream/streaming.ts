/** The streaming half of the client, loaded on first use (`client.fetch`, `client.stream`, `client.stop`). */
export { answerStream } from './answer-stream.js';
export { createIntentFetch, openAnswer } from './intent-fetch.js';
export { createStop } from '../stop.js';
