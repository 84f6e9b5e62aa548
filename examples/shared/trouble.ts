/**
 * The demos' "Network trouble" switch: what goes wrong with the next answer (the AI SDK
 * demo's ../ai-sdk-chat/faults.ts and ./producers.ts do it for real, on the server).
 * Shared by the page, which shows the switch, and the servers, which check what it is set to.
 */
const TROUBLES = ['none', 'cut', 'break', 'crash-after-tool', 'crash-in-tool'] as const;

export type Trouble = (typeof TROUBLES)[number];

export const isTrouble = (value: unknown): value is Trouble => TROUBLES.includes(value as Trouble);

/** The 400 a PUT of anything else gets, naming what `trouble` may be. */
export const troubleProblem = (): Response =>
  Response.json({ title: `\`trouble\` must be one of ${TROUBLES.map((mode) => `"${mode}"`).join(', ')}.` }, { status: 400 });
