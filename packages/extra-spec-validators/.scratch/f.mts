import { readFlavorFile, validateFlavorFile } from '../src/index.ts';

const cases = [
  'name: m1\nvcpus: four\nram: -1\ndisk: 2.5\nswap: ""\nextra_spec:\n  hw:cpu_polcy: dedicated\n',
  'name: m1\nvcpus: "4"\nextra_specs: {}\nflavour_id: x\n',
  '{"OS-FLV-DISABLED:disabled": false, "OS-FLV-EXT-DATA:ephemeral": 0, "access_project_ids": null, "description": null, "disk": 1, "id": "1", "name": "m1.tiny", "os-flavor-access:is_public": true, "properties": "hw:cpu_policy=\'dedicated\'", "ram": 512, "rxtx_factor": 1.0, "swap": "", "vcpus": 1}',
  '[{"ID": "1", "Name": "m1.tiny", "RAM": 512, "Disk": 1, "Ephemeral": 0, "VCPUs": 1, "Is Public": true, "Swap": 0, "RXTX Factor": 1.0, "Properties": {"hw:cpu_policy": "dedicated"}}]',
];
for (const c of cases) {
  const r = validateFlavorFile(c, 'f.yaml');
  console.log(
    r.ok,
    JSON.stringify(r.diagnostics.map((d) => [d.code, d.severity, d.line, d.column, d.message, d.hint])),
  );
}
