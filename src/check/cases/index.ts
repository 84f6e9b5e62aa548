/** Every case, in the order a run checks them: PROTOCOL.md's order. */
import type { CheckCase } from '../case.js';
import { idCases } from './ids.js';
import { inProgressCases } from './in-progress.js';
import { pastTheEndCases } from './past-the-end.js';
import { replayCases } from './replay.js';
import { resumeCases } from './resume.js';
import { scopeCases } from './scope.js';
import { stopCases } from './stop.js';

export const CASES: readonly CheckCase[] = [
  ...idCases,
  ...scopeCases,
  ...replayCases,
  ...inProgressCases,
  ...resumeCases,
  ...pastTheEndCases,
  ...stopCases,
];
