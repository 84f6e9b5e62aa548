/**
 * The errors `ctx.step` throws for the journal's own reasons (a step's own error is
 * rethrown as the step threw it, or — replayed — as an `Error` with its recorded name and
 * message).
 */

/**
 * A former run of this intent started the step and recorded no outcome — it died inside
 * it, lost its lease, or its outcome could not be written — so whether it happened is
 * unknown, and the step is not run again (its `repeat` is `'never'` and no `reconcile`
 * said it was not done). Show it, or hand it to the model: "this action may or may not
 * have happened". Every later run of the intent gets the same error for this step.
 */
export class StepUncertainError extends Error {
  override name = 'StepUncertainError' as const;
  /** The step's name, as given to `ctx.step`. */
  readonly step: string;
  /** The step's key (the one handed to its `fn` as `key`, e.g. sent as `Idempotency-Key`). */
  readonly stepKey: string;

  constructor(step: string, stepKey: string) {
    super(
      `answer-once: the step "${step}" started in an earlier run of this intent and recorded no outcome; it may or may not have happened, so it is not run again.`,
    );
    this.step = step;
    this.stepKey = stepKey;
  }
}

/**
 * A step's outcome is larger than `maxStepBytes`, so it was not recorded: this run gets
 * this error instead of the value, and a later run of the intent finds the step started
 * without outcome (uncertain, or run again when it is safe to repeat).
 */
export class StepOutcomeTooLargeError extends Error {
  override name = 'StepOutcomeTooLargeError' as const;
  /** The step's name. */
  readonly step: string;
  /** The outcome's size as it would be stored, in bytes (UTF-8). */
  readonly bytes: number;
  /** The bound it exceeded (`maxStepBytes`). */
  readonly maxStepBytes: number;

  constructor(step: string, bytes: number, maxStepBytes: number, options?: { cause?: unknown }) {
    super(
      `answer-once: the outcome of step "${step}" is ${bytes} bytes, more than maxStepBytes (${maxStepBytes}); it was not recorded.`,
      options,
    );
    this.step = step;
    this.bytes = bytes;
    this.maxStepBytes = maxStepBytes;
  }
}
