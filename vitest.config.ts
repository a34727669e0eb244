import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests run on the sources of workspace packages through the `@stackspec/source`
// export condition, so `pnpm test` needs no build first.
const conditions = ['@stackspec/source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@stackspec/source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
