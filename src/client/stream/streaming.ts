/** The streaming half of the client, loaded on first use (`client.fetch`, `client.stream`). */
export { answerStream } from './answer-stream.js';
export { createIntentFetch, openAnswer } from './intent-fetch.js';
