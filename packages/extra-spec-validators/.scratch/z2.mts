import { diagnosticsFromZod } from '@stackspec/core';
import { z } from 'zod';

const count = z.union([z.number().int().min(0), z.string().regex(/^\d+$/)], {
  error: 'must be a whole number of 0 or more',
});
const S = z
  .object({
    name: z.string().optional(),
    vcpus: count.optional(),
    swap: z.union([count, z.literal('')]).optional(),
    extra_specs: z.unknown(),
  })
  .strict();
for (const v of [
  { vcpus: 'four' },
  { vcpus: -1 },
  { vcpus: 2.5 },
  { extra_spec: {} },
  { name: 3 },
  { swap: 'x' },
]) {
  const r = S.safeParse(v);
  console.log(
    JSON.stringify(v),
    r.success
      ? 'ok'
      : JSON.stringify(
          diagnosticsFromZod(r.error, { value: v, schema: S, area: 'extra-specs' }).map((d) => [
            d.code,
            d.path,
            d.message,
            d.hint,
          ]),
        ),
  );
}
