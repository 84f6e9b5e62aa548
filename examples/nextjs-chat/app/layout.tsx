import type { ReactNode } from 'react';
import '../../ai-sdk-chat/web/styles.css';

export const metadata = { title: 'answer-once × Next.js' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
