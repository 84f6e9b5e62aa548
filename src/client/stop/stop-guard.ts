/**
 * The stop guard, one default for every entry: a person's double-click puts its second
 * click 100–200 ms after the first, and when Stop takes Send's place that click lands on
 * Stop. A stop this soon after the send that started the answer is ignored
 * (`SendController`'s and `answerOnceTransport`'s `stopGuardMs`).
 */
export const DEFAULT_STOP_GUARD_MS = 500;
