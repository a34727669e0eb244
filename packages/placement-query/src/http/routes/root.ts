import { MAX_MICROVERSION, MIN_MICROVERSION } from '../../microversion.js';
import type { PlacementRoute, ResponseParts } from '../context.js';

/** `GET /`: the version document (open without a token, even under `noauth2`). */
function home(): ResponseParts {
  return {
    status: 200,
    cache: true,
    body: {
      versions: [
        {
          id: `v${MIN_MICROVERSION}`,
          max_version: MAX_MICROVERSION,
          min_version: MIN_MICROVERSION,
          status: 'CURRENT',
          links: [{ rel: 'self', href: '' }],
        },
      ],
    },
  };
}

/** The root of Placement's API (the mount point itself, with or without its slash, routes here). */
export const ROOT_ROUTES: readonly PlacementRoute[] = [{ path: '/', methods: { GET: home } }];
