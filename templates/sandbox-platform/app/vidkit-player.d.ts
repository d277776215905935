import type { DetailedHTMLProps, HTMLAttributes } from 'react';

// <vidkit-player> is a custom element (vidkit/player); these are the attributes the page uses.
declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'vidkit-player': DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement> & {
        src: string;
        width: number;
        height: number;
        controls?: boolean;
        autoplay?: boolean;
        loop?: boolean;
        muted?: boolean;
        variables?: string;
      };
    }
  }
}
