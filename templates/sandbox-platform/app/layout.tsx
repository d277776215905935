import type { ReactNode } from 'react';

export const metadata = { title: 'vidkit preview' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ margin: 0, background: '#0b0d14', color: '#eef0f8', fontFamily: 'system-ui, sans-serif' }}>{children}</body>
    </html>
  );
}
