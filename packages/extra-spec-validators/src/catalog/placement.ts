import { STANDARD_RESOURCE_CLASSES, standardTraits, traitRelease } from '@stackspec/core';
import { defineExtraSpec, type ExtraSpecDefinition, type ValueRule } from '../define.js';
import { firstReleaseWithOsTraits, type ReleaseName } from '../releases.js';

/** Placement's optional request-group suffix: `resources1:`, `trait_gpu:`… (1–64 characters). */
const GROUP = {
  name: 'group',
  pattern: '([a-zA-Z0-9_-]{1,64})?',
  description:
    'Optional request group suffix (up to 64 letters, digits, ``_`` or ``-``); keys sharing a ' +
    'suffix must be satisfied by one resource provider.',
} as const;

/** Resource classes that os-resource-classes 1.1.0 (first pinned by Xena) added. */
const XENA_CLASSES = new Set([
  'NET_PACKET_RATE_KILOPACKET_PER_SEC',
  'NET_PACKET_RATE_EGR_KILOPACKET_PER_SEC',
  'NET_PACKET_RATE_IGR_KILOPACKET_PER_SEC',
]);

/** `resources{group}:` — amounts of Placement resource classes to claim. */
export const RESOURCES_SPECS: readonly ExtraSpecDefinition[] = [
  ...STANDARD_RESOURCE_CLASSES.map((rc) =>
    defineExtraSpec({
      name: `resources{group}:${rc}`,
      description: `Amount of the \`\`${rc}\`\` resource class to claim from Placement; \`\`0\`\` removes a claim the flavor would otherwise make.`,
      parameters: [GROUP],
      value: { type: 'int', description: 'An amount.' },
      status: { added: XENA_CLASSES.has(rc) ? 'xena' : 'ussuri' },
    }),
  ),
  defineExtraSpec({
    name: 'resources{group}:CUSTOM_{resource}',
    description: 'Amount of a custom resource class (``CUSTOM_…``) to claim from Placement.',
    parameters: [
      GROUP,
      { name: 'resource', pattern: '[A-Z0-9_]+', description: 'The rest of the custom class name.' },
    ],
    value: { type: 'int', description: 'An amount.' },
    status: { added: 'ussuri' },
  }),
];

const TRAIT_VALUE: ValueRule = {
  type: 'str',
  enum: ['required', 'forbidden'],
  description: 'Whether hosts must have or must lack the trait.',
};

/** `trait{group}:` — traits hosts must have (`required`) or lack (`forbidden`). */
export const TRAIT_SPECS: readonly ExtraSpecDefinition[] = [
  ...[...standardTraits()].sort().flatMap((trait) => {
    const added = firstReleaseWithOsTraits(traitRelease(trait) ?? '99');
    if (!added) return [];
    return [
      defineExtraSpec({
        name: `trait{group}:${trait}`,
        description: `Requires (\`\`required\`\`) or rules out (\`\`forbidden\`\`) hosts with the \`\`${trait}\`\` trait.`,
        parameters: [GROUP],
        value: TRAIT_VALUE,
        status: { added: added.name as ReleaseName },
      }),
    ];
  }),
  defineExtraSpec({
    name: 'trait{group}:CUSTOM_{trait}',
    description: 'Requires or rules out hosts with a custom trait (``CUSTOM_…``).',
    parameters: [
      GROUP,
      { name: 'trait', pattern: '[A-Z0-9_]+', description: 'The rest of the custom trait name.' },
    ],
    value: TRAIT_VALUE,
    status: { added: 'ussuri' },
  }),
];
