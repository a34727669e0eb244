// The console sessions of the Heat capabilities guide, replayed (see replay.ts for how a page is read).
import { replayPage } from './replay.js';

replayPage('docs/guides/heat-capabilities.md');
