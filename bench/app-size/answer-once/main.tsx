// The same chat on answer-once: what a useChat app adds to switch transports.
import { useChat } from '@ai-sdk/react';
import { createClient, localStorageAdapter } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { Chat } from '../chat.js';

const client = createClient({ storage: localStorageAdapter() });
const transport = answerOnceTransport({ client });

Chat.render(() => useChat({ transport }));
