import fs from "node:fs";

/** Clock ticks per second of /proc's CPU times: USER_HZ, 100 on Linux on every common platform. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system, all threads) a process has used so far, from /proc/<pid>/stat (Linux). */
export const cpuSecondsOf = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
};
