// The page runtime: one classic script, run before any page script, that puts the page on a
// virtual clock and installs `window.__vidkit` (../protocol.ts). page-bundle.ts bundles this
// module and wraps it in a function that returns at once when the runtime is there already.
// The modules' own top-level code only declares; what changes the page happens here, part by
// part, in this order: the clock first, so that everything after it (and every page script)
// reads virtual time, `window.__vidkit` last, once everything it exposes is in place.
import { installAdapters } from './adapters';
import { installAnimationWatch } from './animations';
import { installChanges } from './changes';
import { installClock } from './clock';
import { installDialogs } from './dialogs';
import { installFonts } from './fonts';
import { installLoads } from './loads';
import { installHfSeek, installSeek } from './seek';
import { videoChannel } from './state';
import { installSubCompositions } from './sub-compositions';
import { installTimelines } from './timelines';
import { installVariables } from './variables';
import { installVideoFrames } from './video-stand-in';

installClock();
installAnimationWatch();
installDialogs();
installFonts();
installTimelines();
installAdapters();
if (videoChannel) installVideoFrames();
installVariables();
// After the runtime's own work at parse time: the page's scripts run after it.
installHfSeek();
installSubCompositions();
installChanges();
installLoads();
installSeek();
