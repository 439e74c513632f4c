/**
 * The load generator's own process: `node cannon.js '<autocannon options as JSON>'` runs one
 * autocannon run and prints its result, with this process's CPU time, as one JSON line on stdout.
 * bench/lib/load.ts starts one or more of these, so the load generator never shares the bench's
 * process (or its event loop) with anything it measures.
 */
import autocannon from 'autocannon';

async function main() {
  const opts = JSON.parse(process.argv[2]) as autocannon.Options;
  const before = process.cpuUsage();
  const r = await autocannon(opts);
  const cpu = process.cpuUsage(before);
  process.stdout.write(
    JSON.stringify({
      rps: r.requests.average,
      total: r.requests.total,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p97_5: r.latency.p97_5,
      p99: r.latency.p99,
      errors: r.errors + r.timeouts,
      non2xx: r.non2xx,
      cpuMs: (cpu.user + cpu.system) / 1000,
    }) + '\n',
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
