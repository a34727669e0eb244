import type { Diagnostic, PyValue } from '@stackspec/core';
import type { ValidatorDefinition } from './validator-definition.js';

/** Where a validator sits in its spec: a JSON pointer to its list item, and the line of its type key. */
export interface SpecLocation {
  /** JSON pointer of the list item, e.g. `/validators/3/os_case/0/redhat/1`. */
  path: string;
  file?: string;
  line?: number;
  column?: number;
}

interface NodeBase extends SpecLocation {
  /** The YAML key that selected this validator (`package`, `script`, … or a custom key). */
  type: string;
}

/** One package of a `package` validator; `version` is an exact pin. */
export interface PackageRef {
  name: string;
  version?: string;
}

/** `package`: every listed package must be installed (installed in one command when fixing). */
export interface PackageNode extends NodeBase {
  kind: 'package';
  packages: PackageRef[];
}

/** `script`: runs a script from the resource roots (or `inline` text) with chosen variables exported. */
export interface ScriptNode extends NodeBase {
  kind: 'script';
  /** The script path, or only a label when the body is inline. */
  name: string;
  inline: boolean;
  body: string;
  /**
   * The resource file the body came from (absent for `inline`). `file`,
   * like every node's, is the spec file the validator is written in.
   */
  scriptPath?: string;
  /** Extra variables to export besides `test_only`, `distro`, `SIV_DISTRO` and `SIV_RECONCILE`. */
  envVars: string[];
  /** Variable that receives the script's standard output. */
  output?: string;
}

/** `copy_script`: copies a resource to `/tmp/<third path segment>` without running it. */
export interface CopyScriptNode extends NodeBase {
  kind: 'copy_script';
  name: string;
  inline: boolean;
  body: string;
  /** The resource file the body came from (absent for `inline`); `file` is the spec file. */
  scriptPath?: string;
  /** Absolute target path on the machine. */
  target: string;
  /** Accepted for compatibility; Sahara never uses it. */
  output?: string;
}

/** `all` (and the top-level list): every child must pass, in order. */
export interface AllNode extends NodeBase {
  kind: 'all';
  validators: ValidatorNode[];
}

/** `any`: one child must pass; all are checked before any is fixed. */
export interface AnyNode extends NodeBase {
  kind: 'any';
  validators: ValidatorNode[];
}

/** One branch of `os_case` or `argument_case`. */
export interface CaseBranch extends SpecLocation {
  /** The key with its YAML type (`1` and `'1'` differ, as in Sahara). */
  key: PyValue;
  /** The key as written. */
  label: string;
  validators: ValidatorNode[];
}

/** `os_case`: runs the first branch named after the distribution or its family. */
export interface OsCaseNode extends NodeBase {
  kind: 'os_case';
  cases: CaseBranch[];
}

/** `argument_case`: runs the branch whose key equals the argument's value. */
export interface ArgumentCaseNode extends NodeBase {
  kind: 'argument_case';
  argumentName: string;
  cases: CaseBranch[];
}

/** `argument_set`: stores a value in the variable map. */
export interface ArgumentSetNode extends NodeBase {
  kind: 'argument_set';
  argumentName: string;
  value: string;
}

/** A validator type supplied through `validatorMap`. */
export interface CustomNode extends NodeBase {
  kind: 'custom';
  config: unknown;
  definition: ValidatorDefinition;
}

/** Any loaded validator. */
export type ValidatorNode =
  | PackageNode
  | ScriptNode
  | CopyScriptNode
  | AllNode
  | AnyNode
  | OsCaseNode
  | ArgumentCaseNode
  | ArgumentSetNode
  | CustomNode;

/** A declared argument (`arguments:` section), in YAML order. */
export interface ImageArgument extends SpecLocation {
  name: string;
  description?: string;
  /** The default with its YAML type; absent when not given. */
  default?: PyValue;
  /** Truthiness of `required` (Sahara does not check its type). */
  required: boolean;
  choices?: PyValue[];
  /** Other keys (such as `hidden`), kept but not interpreted. */
  extra: Record<string, unknown>;
}

/** A loaded, checked image spec, ready for {@link validateImage}. */
export interface ImageSpec {
  file?: string;
  arguments: ImageArgument[];
  /** The top-level validators (they run as one `all`). */
  validators: ValidatorNode[];
  /** Absolute resource roots that scripts were resolved against. */
  resourceRoots: string[];
  /** Non-fatal findings: unknown top-level keys, duplicate keys. */
  warnings: Diagnostic[];
}
