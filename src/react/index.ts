/**
 * `answer-once/react`: the `useSend` hook over the client's send controller.
 * React 18 or 19 is an optional peer; nothing else in the package imports React.
 *
 * @module answer-once/react
 */

export type {
  ControllerClient,
  ControllerSendOptions,
  SendControllerOptions,
} from '../client/controller/controller-options.js';
export type { RetryInfo, SendState, SendStatus } from '../client/controller/send-state.js';
export type { SendActions, UseSendOptions, UseSendResult } from './use-send.js';
export { useSend } from './use-send.js';
