// Preloaded with `node --import` by scripts/check-tarballs.mjs: writes every
// module the process loads, one URL or path a line, to the file named by
// STACKSPEC_LOAD_LOG. ES modules are seen by a resolve hook (it runs on the
// loader's own thread, so it appends as it goes); CommonJS modules are read
// from require.cache when the process exits.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const log = process.env.STACKSPEC_LOAD_LOG;
if (log) {
  const hooks = `
    import { appendFileSync } from 'node:fs';
    export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
      return resolved;
    }
  `;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    appendFileSync(
      log,
      Object.keys(cache)
        .map((file) => `${file}\n`)
        .join(''),
    );
  });
}
