// Run by tests as a user that is not root (node --import tsx, with a uid):
// drives a local or chroot remote through its sudo path and prints what it
// saw as JSON. Argument: {"kind": "local" | "chroot", "root"?: dir, "marker": path}.
import { randomBytes } from 'node:crypto';
import { isStackspecError } from '@stackspec/core';
import { createChrootRemote } from '../../src/adapters/chroot.js';
import { createLocalRemote } from '../../src/adapters/local.js';
import { loadImageSpec } from '../../src/load.js';
import { validateImage } from '../../src/validate.js';
import { hostileStrings } from '../remote-contract.js';

const input = JSON.parse(process.argv[2] ?? '{}') as {
  kind: 'local' | 'chroot';
  root?: string;
  marker: string;
};
const remote =
  input.kind === 'chroot' ? createChrootRemote({ root: input.root ?? '/nonexistent' }) : createLocalRemote();
const seen: Record<string, unknown> = {};
try {
  seen.user = (await remote.exec('id -u')).stdout.trim();
  seen.root = (await remote.exec('id -u', { asRoot: true })).stdout.trim();
  const hostile = hostileStrings(input.marker);
  const env = Object.fromEntries(hostile.map((v, i) => [`V${i}`, v]));
  const printf = `printf '%s\\001' ${hostile.map((_, i) => `"$V${i}"`).join(' ')}`;
  const echoed = (await remote.exec(printf, { env, asRoot: true })).stdout.split('\u0001').slice(0, -1);
  seen.envLiteral = JSON.stringify(echoed) === JSON.stringify(hostile);
  const path = `/tmp/siv-as-user-${randomBytes(4).toString('hex')}`;
  await remote.writeFile(path, 'x', { asRoot: true, mode: 0o600 });
  seen.written = (
    await remote.exec(`stat -c '%u %a' ${path}; rm -f ${path}`, { asRoot: true })
  ).stdout.trim();
  const spec = loadImageSpec(
    'validators:\n  - package: dpkg\n  - script: {who: {inline: "id -u", output: who}}\n',
  );
  const report = await validateImage(spec, remote, { reconcile: false, families: { debian: 'debian' } });
  seen.validation = report.ok ? report.variables.who : report.failure;
} catch (e) {
  seen.error = isStackspecError(e) ? { code: e.code, message: e.message } : String(e);
}
process.stdout.write(JSON.stringify(seen));
