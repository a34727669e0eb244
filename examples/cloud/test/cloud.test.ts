// The example cloud must keep doing what its README says it does.
import { join } from 'node:path';
import { runStackspec } from '@stackspec/cli';
import type { CliIO } from '@stackspec/core/cli';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..');

async function stackspec(args: string[]) {
  let out = '';
  const io: CliIO = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
    env: { NO_COLOR: '1' },
    cwd: root,
  };
  const code = await runStackspec(args, io);
  return { code, out };
}

const WINDOWS = '6f0a7e2c-5d1b-4c8a-9b0e-2a4f3c1d7e01';
const RESERVED = '6f0a7e2c-5d1b-4c8a-9b0e-2a4f3c1d7e02';
const names = (r: { candidates: { name: string }[] }) => r.candidates.map((c) => c.name);
const scheduled = async (...args: string[]) =>
  JSON.parse((await stackspec(['schedule', ...args, '--format', 'json', '.'])).out);

describe('example cloud', () => {
  it('keeps ordinary flavors off the reserved host and sends the lease flavor there', async () => {
    const plain = await scheduled('--flavor', 'FlavorVMXMirror');
    expect(plain.request.groups[0].forbiddenAggregates).toEqual([WINDOWS, RESERVED]);
    expect(plain.candidates.map((c: { name: string }) => c.name)).toEqual(['bm-01', 'bm-02']);
    const leased = JSON.parse(
      (await stackspec(['schedule', '--flavor', 'FlavorVMXMirrorLeaseR1', '--format', 'json', '.'])).out,
    );
    expect(leased.query).toContain(`member_of=${RESERVED}`);
    expect(leased.candidates.map((c: { name: string }) => c.name)).toEqual(['bm-03']);
    expect(leased.plan.matchedTemplates).toEqual([
      'CUSTOM_BM_CONFIG_BIOS_VMX_ON',
      'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR',
    ]);
  });

  it('sends the licensed-Windows flavor to the licensed host and keeps other flavors off it', async () => {
    const windows = await scheduled('--flavor', 'w1.windows');
    expect(windows).toMatchObject({ ok: true, node: { name: 'kvm-03' }, bareMetal: false });
    expect(names(windows)).toEqual(['kvm-03']);
    expect(windows.query).not.toContain(WINDOWS);
    for (const flavor of ['m1.small', 'c1.pinned']) {
      const r = await scheduled('--flavor', flavor);
      expect(r.ok).toBe(true);
      expect(r.request.groups[0].forbiddenAggregates).toContain(WINDOWS);
      expect(names(r)).not.toContain('kvm-03');
    }
    // Without isolation the licensed host is an ordinary one.
    expect(names(await scheduled('--flavor', 'm1.small', '--no-isolate-aggregates'))).toEqual([
      'kvm-01',
      'kvm-02',
      'kvm-03',
    ]);
  });

  it('check finds exactly the planted typos', async () => {
    const r = await stackspec(['check', '.']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('flavors/typos.yaml:11:7  error');
    expect(r.out).toContain('hint: Did you mean resources:CUSTOM_COMPUTE_A?');
    expect(r.out).toContain('hint: Did you mean hw:cpu_policy?');
    expect(r.out).toContain('hint: Did you mean isolate?');
    expect(r.out).toMatch(/✖ 5 problems \(5 errors, 0 warnings\)/);
    expect(r.out).not.toMatch(/^(flavors\/(baremetal|virtual)|inventory|deploy-templates|heat|image)/m);
  });

  it.each([
    [
      'FlavorVMXMirror',
      'CUSTOM_BM_CONFIG_BIOS_VMX_ON',
      'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR',
      '"raid_level":"1"',
    ],
    [
      'FlavorNoVMXStripe',
      'CUSTOM_BM_CONFIG_BIOS_VMX_OFF',
      'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE',
      '"raid_level":"0"',
    ],
  ])(
    'schedule %s lands on bm-01 with the BIOS and RAID steps of its traits',
    async (flavor, bios, raid, level) => {
      const r = await stackspec(['schedule', '--flavor', flavor, '--format', 'json', '.']);
      expect(r.code).toBe(0);
      const result = JSON.parse(r.out);
      expect(result.node.name).toBe('bm-01');
      expect(result.plan.matchedTemplates).toEqual([bios, raid]);
      const steps = result.plan.steps.map(
        (s: { interface: string; step: string; priority: number }) =>
          `${s.interface}.${s.step}:${s.priority}`,
      );
      expect(steps[0]).toBe('bios.apply_configuration:150');
      expect(steps.at(-1)).toBe('raid.create_configuration:10');
      expect(JSON.stringify(result.plan.steps.at(-1).args)).toContain(level);
    },
  );
});
