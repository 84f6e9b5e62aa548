// The baseline: a chat on the AI SDK's own transport.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { Chat } from '../chat.js';

const transport = new DefaultChatTransport({ api: '/api/chat' });

Chat.render(() => useChat({ transport }));
