// What a process costs in memory, read from Linux's /proc, for the
// reliability suites that bound a server's peak: VmHWM is the peak resident
// size, VmRSS the current one. Writing 5 to clear_refs (Linux 4.0+) starts
// the peak over from the current size, so a case can measure what it adds.
import { readFileSync, writeFileSync } from 'node:fs';

/** Resident memory of process `pid`, in MiB: `peak` (VmHWM) and `now` (VmRSS); undefined without /proc or once it has ended. */
export function processMemoryMiB(pid: number): { peak: number; now: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (name: string) => new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1];
  // A process that has ended but not been reaped (a zombie) has a status without memory lines.
  const peak = kb('VmHWM');
  const now = kb('VmRSS');
  if (peak === undefined || now === undefined) return undefined;
  return { peak: Number(peak) / 1024, now: Number(now) / 1024 };
}

/** Starts process `pid`'s peak over from its current size. */
export function resetPeakMemory(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
