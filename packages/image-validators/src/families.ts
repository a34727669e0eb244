/** Sahara's map from distribution id to package family (`debian` itself is missing there). */
export const SAHARA_DISTRO_FAMILIES: Readonly<Record<string, string>> = Object.freeze({
  centos: 'redhat',
  centos7: 'redhat',
  fedora: 'redhat',
  redhat: 'redhat',
  rhel: 'redhat',
  redhatenterpriseserver: 'redhat',
  ubuntu: 'debian',
});

/**
 * Our default map: Sahara's, plus Debian itself and the common derivatives
 * and rebuilds whose package tools are the same.
 */
export const DISTRO_FAMILIES: Readonly<Record<string, string>> = Object.freeze({
  ...SAHARA_DISTRO_FAMILIES,
  debian: 'debian',
  raspbian: 'debian',
  linuxmint: 'debian',
  pop: 'debian',
  devuan: 'debian',
  rocky: 'redhat',
  almalinux: 'redhat',
  ol: 'redhat',
  scientific: 'redhat',
  amzn: 'redhat',
});

/** The package family of a distribution id in `families`, or `undefined`. */
export function familyOf(
  distro: string,
  families: Readonly<Record<string, string>> = DISTRO_FAMILIES,
): string | undefined {
  return Object.hasOwn(families, distro) ? families[distro] : undefined;
}
