// Heat's template formats, as registered by the `heat.templates` entry points
// of Heat 19 (the list has not changed since Wallaby).

/** The three keys Heat looks at to pick a template format. */
export const VERSION_KEYS = [
  'heat_template_version',
  'HeatTemplateFormatVersion',
  'AWSTemplateFormatVersion',
] as const;
/** One of the three version keys. */
export type VersionKey = (typeof VERSION_KEYS)[number];

/** One accepted version value and what it allows. */
export interface TemplateVersion {
  /** The key that carries the version. */
  key: VersionKey;
  /** The value as written in templates (a date or a release name). */
  value: string;
  /** `hot` for `heat_template_version`, `cfn` for the two CloudFormation keys. */
  format: 'hot' | 'cfn';
  /** The date of the class the value selects (release names are aliases of a date). */
  date: string;
  /** Top-level sections the version accepts. */
  sections: readonly string[];
  /** Keys a resource definition may hold when a stack is built. */
  resourceKeys: readonly string[];
}

const HOT_BASE_SECTIONS = [
  'heat_template_version',
  'description',
  'parameter_groups',
  'parameters',
  'resources',
  'outputs',
  // Heat lists an internal placeholder among the HOT sections, so a template
  // may carry it without being rejected.
  '__undefined__',
];
const HOT_CONDITION_SECTIONS = [...HOT_BASE_SECTIONS, 'conditions'];
const HOT_BASE_RESOURCE_KEYS = [
  'type',
  'properties',
  'metadata',
  'depends_on',
  'deletion_policy',
  'update_policy',
  'description',
];
const HOT_CONDITION_RESOURCE_KEYS = [...HOT_BASE_RESOURCE_KEYS, 'external_id', 'condition'];
const CFN_SECTIONS = [
  'AWSTemplateFormatVersion',
  'HeatTemplateFormatVersion',
  'Description',
  'Mappings',
  'Parameters',
  'Resources',
  'Outputs',
];
const CFN_RESOURCE_KEYS = [
  'Type',
  'Properties',
  'Metadata',
  'DependsOn',
  'DeletionPolicy',
  'UpdatePolicy',
  'Description',
];

function hot(value: string, date: string, withConditions: boolean): TemplateVersion {
  return {
    key: 'heat_template_version',
    value,
    format: 'hot',
    date,
    sections: withConditions ? HOT_CONDITION_SECTIONS : HOT_BASE_SECTIONS,
    resourceKeys: withConditions ? HOT_CONDITION_RESOURCE_KEYS : HOT_BASE_RESOURCE_KEYS,
  };
}

/**
 * Every template version Heat accepts, in the order Heat lists them in its
 * error message (dates, then release names, sorted as text).
 */
export const TEMPLATE_VERSIONS: readonly TemplateVersion[] = [
  {
    key: 'AWSTemplateFormatVersion',
    value: '2010-09-09',
    format: 'cfn',
    date: '2010-09-09',
    sections: [...CFN_SECTIONS, 'Conditions'],
    resourceKeys: [...CFN_RESOURCE_KEYS, 'Condition'],
  },
  {
    key: 'HeatTemplateFormatVersion',
    value: '2012-12-12',
    format: 'cfn',
    date: '2012-12-12',
    sections: CFN_SECTIONS,
    resourceKeys: CFN_RESOURCE_KEYS,
  },
  hot('2013-05-23', '2013-05-23', false),
  hot('2014-10-16', '2014-10-16', false),
  hot('2015-04-30', '2015-04-30', false),
  hot('2015-10-15', '2015-10-15', false),
  hot('2016-04-08', '2016-04-08', false),
  hot('2016-10-14', '2016-10-14', true),
  hot('2017-02-24', '2017-02-24', true),
  hot('2017-09-01', '2017-09-01', true),
  hot('2018-03-02', '2018-03-02', true),
  hot('2018-08-31', '2018-08-31', true),
  hot('2021-04-16', '2021-04-16', true),
  hot('newton', '2016-10-14', true),
  hot('ocata', '2017-02-24', true),
  hot('pike', '2017-09-01', true),
  hot('queens', '2018-03-02', true),
  hot('rocky', '2018-08-31', true),
  hot('wallaby', '2021-04-16', true),
];

/** The section our capabilities annotation adds to every HOT version. */
export const CAPABILITIES_SECTION = 'capabilities';

/**
 * Keys accepted inside a HOT resource by Heat's first validation pass, for
 * every HOT version. Heat shares one translation table between its HOT
 * classes and a later class adds to it, so this pass lets `external_id`,
 * `condition` (and, through the output table, `value`) through even in
 * versions that reject them when the stack is built.
 */
export const HOT_VALIDATE_RESOURCE_KEYS: readonly string[] = [...HOT_CONDITION_RESOURCE_KEYS, 'value'];

/** Finds the version entry for a key and value, or `undefined`. */
export function findTemplateVersion(key: string, value: string): TemplateVersion | undefined {
  return TEMPLATE_VERSIONS.find((v) => v.key === key && v.value === value);
}

/** All values accepted for one version key, sorted as Heat sorts them. */
export function versionValues(key: VersionKey): string[] {
  return TEMPLATE_VERSIONS.filter((v) => v.key === key)
    .map((v) => v.value)
    .sort();
}

/** True for the keys Heat uses to tell templates from other documents. */
export function isVersionKey(key: string): key is VersionKey {
  return (VERSION_KEYS as readonly string[]).includes(key);
}
