/**
 * `toolAnswers` is a capability the app imports: a chat without tools the page answers
 * bundles none of the approvals' keying or the message rebuild (the approvals' own specs:
 * approvals.test.ts, with it handed in).
 */
import { createClient } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { describe, expect, it } from 'vitest';
import { bundled } from '../support/bundled.js';

describe('toolAnswers', () => {
  it('answerOnceTransport alone bundles none of it; imported, it brings the approvals and the message rebuild', async () => {
    const alone = await bundled("export { answerOnceTransport } from './src/ai/index.ts';");
    expect(alone).toContain('src/ai/transport.ts');
    expect(alone).not.toContain('src/ai/approvals.ts');
    expect(alone).not.toContain('src/ai/continued-message.ts');
    const withTools = await bundled("export { answerOnceTransport, toolAnswers } from './src/ai/index.ts';");
    expect(withTools).toContain('src/ai/approvals.ts');
    expect(withTools).toContain('src/ai/continued-message.ts');
  }, 30_000);

  it('answerOnceTransport refuses a `toolAnswers` that is not the capability, naming the option', () => {
    expect(() => answerOnceTransport({ client: createClient(), toolAnswers: true as never })).toThrow(
      /answer-once\/ai: `toolAnswers` must be answer-once\/ai's toolAnswers; got/,
    );
  });
});
