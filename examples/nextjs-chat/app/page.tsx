'use client';
/**
 * The page: the AI SDK demo's `useChat` page (examples/ai-sdk-chat/web/App.tsx, with its
 * `answerOnceTransport` in web/chat.ts), rendered in the browser only — its conversation
 * and pending intents live in localStorage, which the server cannot see.
 */
import dynamic from 'next/dynamic';

const App = dynamic(() => import('../../ai-sdk-chat/web/App').then((module) => module.App), { ssr: false });

export default function Page() {
  return <App />;
}
