// The chat both apps render: messages, a box, Send and Stop.
import type { useChat } from '@ai-sdk/react';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

function View({ chat }: { chat: ReturnType<typeof useChat> }) {
  const [input, setInput] = useState('');
  return (
    <main>
      {chat.messages.map((message) => (
        <p key={message.id}>{message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')}</p>
      ))}
      <input value={input} onChange={(event) => setInput(event.target.value)} />
      <button type="button" onClick={() => void chat.sendMessage({ text: input })}>
        Send
      </button>
      <button type="button" onClick={() => void chat.stop()}>
        Stop
      </button>
    </main>
  );
}

export const Chat = {
  /** Mounts the chat `useChatHook` drives. */
  render(useChatHook: () => ReturnType<typeof useChat>): void {
    function App() {
      return <View chat={useChatHook()} />;
    }
    createRoot(document.getElementById('root')!).render(<App />);
  },
};
