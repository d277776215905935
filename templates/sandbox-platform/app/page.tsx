import { PREVIEW_COMPOSITION_DIR } from '../lib/config';
import RenderForm from './render-form';

// The preview's size on the page; the composition keeps its own size (data-width/data-height).
const PLAYER_WIDTH = 960;
const PLAYER_HEIGHT = 540;

export default function Home() {
  return (
    <main style={{ padding: 24 }}>
      <script type="module" src="/vidkit-player.js"></script>
      <vidkit-player
        src={`${PREVIEW_COMPOSITION_DIR}/index.html`}
        width={PLAYER_WIDTH}
        height={PLAYER_HEIGHT}
        controls
        autoplay
        loop
        muted
      ></vidkit-player>
      <RenderForm />
    </main>
  );
}
