// Replays docs/guides/placement-query.md (see replay.ts for how a page is read): its files, its
// queries, the server of section 6 under the real `openstack` client, and the TypeScript snippets.
import { replayPage } from './replay.js';

replayPage('docs/guides/placement-query.md');
