// `pnpm demo`: the main job on embedded defaults, no server to install.
// 1. `stackspec check examples`: every flavor, inventory, deploy template,
//    image spec and Heat file of the example cloud, typos included (those
//    are reported on purpose).
// 2. `stackspec schedule`: the spec's two bare-metal flavors walked from
//    extra spec validation through Placement to the deploy steps of a node.

import { fileURLToPath } from 'node:url';
import { runStackspec } from '@stackspec/cli';
import { createColors, processIO } from '@stackspec/core/cli';

// The repository root, whatever the working directory (import.meta.dirname needs Node 20.11).
const root = fileURLToPath(new URL('..', import.meta.url));
const io = { ...processIO(), cwd: root };
const c = createColors({ stream: io.stdout, env: io.env });
const banner = (text: string) => io.stdout.write(`\n${c.bold(`$ ${text}`)}\n\n`);

banner('stackspec check examples');
const checked = await runStackspec(['check', 'examples'], io);

const runs: number[] = [];
for (const flavor of ['FlavorVMXMirror', 'FlavorNoVMXStripe']) {
  banner(`stackspec schedule --flavor ${flavor} examples/cloud`);
  runs.push(await runStackspec(['schedule', '--flavor', flavor, 'examples/cloud'], io));
}

// The example holds deliberate typos, so `check` exits 1; anything else is a failure of the demo.
const ok = checked === 1 && runs.every((code) => code === 0);
io.stdout.write(
  `\n${ok ? 'demo finished: check found the planted typos, both flavors were scheduled' : 'demo FAILED'}\n`,
);
process.exitCode = ok ? 0 : 1;
