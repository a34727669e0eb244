// The generated cloud the placement-query benchmarks measure: compute nodes with
// two NUMA children, sharing storage, aggregates, custom traits and some usage.

/** The generator options for a benchmark cloud of `nodes` compute nodes. */
export function benchCloudShape(nodes: number) {
  return {
    computeNodes: nodes,
    numaPerNode: 2,
    sharingProviders: 5 + Math.floor(nodes / 20000),
    aggregates: 50,
    customTraits: 30,
    rich: false,
    usageRate: 0.2,
  };
}
