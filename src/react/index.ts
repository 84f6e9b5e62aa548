/**
 * `answer-once/react`: the `useSend` hook over the client's send controller.
 * React 18 or 19 is an optional peer; nothing else in the package imports React.
 *
 * @module answer-once/react
 */
export { useSend } from './use-send.js';
export type { SendActions, UseSendOptions, UseSendResult } from './use-send.js';
export type { SendState, SendStatus, RetryInfo } from '../client/controller/send-state.js';
export type {
  ControllerClient,
  ControllerSendOptions,
  SendControllerOptions,
} from '../client/controller/controller-options.js';
