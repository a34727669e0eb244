// An out-of-tree extra spec: Blazar-style reservations. Nova accepts a key
// without a namespace silently; stackspec's strict mode knows only what is
// registered, so the operator who uses reservations registers the key.
export const extraSpecs = [
  {
    name: 'reservation',
    description:
      'The lease this flavor belongs to. Instances of the flavor may only land on hosts of the aggregate whose ' +
      'metadata names the same reservation; flavors without it are kept off every reserved host.',
    value: { type: 'str', pattern: '[a-zA-Z0-9_-]+' },
  },
];
