// The generated reStructuredText must parse cleanly with docutils (what
// Sphinx builds on): no warnings, no errors, every target defined once.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import { builtinRegistry, renderRst } from '../src/index.js';

const CHECK = `
import sys, json, docutils.core, docutils.utils
from docutils import nodes
source = sys.stdin.read()
messages = []
class Sink:
    def write(self, text): messages.append(text)
doc = docutils.core.publish_doctree(source, settings_overrides={'warning_stream': Sink(), 'report_level': 2, 'halt_level': 5})
targets = [n['refid'] if 'refid' in n else n['ids'][0] for n in doc.traverse(nodes.target) if n.get('refid') or n.get('ids')]
raw = [t.astext() for t in doc.traverse(nodes.Text) if '\x60\x60' in t.astext() and not isinstance(t.parent, nodes.literal)]
changed = [f for f in doc.traverse(nodes.field) if f[0].astext() == 'Changed']
literals = sum(len(list(f[1].traverse(nodes.literal))) for f in changed)
print(json.dumps({'messages': messages, 'targets': len(targets), 'sections': len(list(doc.traverse(nodes.section))), 'raw': raw[:5], 'changed': len(changed), 'changedLiterals': literals}))
`;

describe.runIf(oracleAvailable('docutils', ['docutils']))('reStructuredText output', () => {
  it.each(['zed', 'hibiscus'])('parses without warnings for %s', (release) => {
    const registry = builtinRegistry(release);
    const r = spawnSync(PYTHON, ['-c', CHECK], {
      input: renderRst(registry),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      messages: string[];
      targets: number;
      sections: number;
      raw: string[];
      changed: number;
      changedLiterals: number;
    };
    expect(out.messages).toEqual([]);
    // Literals show as literals: no backticks survive as text, and the Changed fields hold literal nodes.
    expect(out.raw).toEqual([]);
    expect(out.changed).toBeGreaterThan(0);
    expect(out.changedLiterals).toBeGreaterThanOrEqual(5);
    expect(out.targets).toBe(registry.size);
  });
});
