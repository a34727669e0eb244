// The deploy template guide, replayed from the scratch folder of docs/README.md (see replay.ts for how a page is read).
import { replayPage } from './replay.js';

replayPage('docs/guides/deploy-templates.md');
