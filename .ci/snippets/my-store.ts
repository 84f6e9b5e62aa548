// The stand-in for a snippet's `./my-store`: the store a reader is writing.
import type { IdempotencyStore, StepStore, StreamStore } from 'answer-once/server';

export declare const MyStore: new (options: { connection: unknown }) => IdempotencyStore & StreamStore & StepStore;
