#include "report.hpp"

#include <fstream>
#include <span>

#include "common/json.hpp"

namespace rcoll::soak {
namespace {

constexpr std::size_t fields = 11;  // per rank: ops, mismatches, rss/hwm/heap at start, mid and end

double mib(std::uint64_t kib) { return static_cast<double>(kib) / 1024; }

std::string bound_text(const SoakOptions& o) {
  char text[96];
  std::snprintf(text, sizeof(text), "end <= mid * (1 + %g/100) + %g MiB", o.rss_growth_percent, o.rss_growth_mib);
  return text;
}

}  // namespace

JobSummary gather_summary(Comm& world, const RankResult& mine, const SoakOptions& options,
                          const std::vector<PoolSetup>& pool, const std::string& transport) {
  const auto n = static_cast<std::size_t>(world.size());
  std::vector<std::uint64_t> table(n * fields, 0);
  std::uint64_t* row = table.data() + static_cast<std::size_t>(world.rank()) * fields;
  row[0] = mine.ops;
  row[1] = mine.mismatches;
  std::size_t at = 2;
  for (const MemoryStatus* m : {&mine.start, &mine.mid, &mine.end}) {
    row[at++] = m->rss_kib;
    row[at++] = m->hwm_kib;
    row[at++] = m->heap_kib;
  }
  world.allreduce(std::span<std::uint64_t>(table), ReduceOp::sum);

  JobSummary summary;
  summary.world = world.size();
  summary.transport = transport;
  summary.pool = pool;
  summary.rank0 = mine;
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint64_t* f = table.data() + r * fields;
    RankFigures figures{f[0], f[1], {f[2], f[3], f[4]}, {f[5], f[6], f[7]}, {f[8], f[9], f[10]}, false};
    figures.rss_grew =
        grew_beyond(figures.mid.rss_kib, figures.end.rss_kib, options.rss_growth_percent, options.rss_growth_mib) ||
        grew_beyond(figures.mid.hwm_kib, figures.end.hwm_kib, options.rss_growth_percent, options.rss_growth_mib);
    summary.mismatches += figures.mismatches;
    summary.rss_ok = summary.rss_ok && !figures.rss_grew;
    summary.ranks.push_back(figures);
  }
  return summary;
}

void print_summary(std::FILE* out, const JobSummary& s, const SoakOptions& o) {
  const RankResult& r = s.rank0;
  std::fprintf(out, "# rcoll-soak: %d ranks over %s, seed %llu, max %zu bytes, %zu communicators\n", s.world,
               s.transport.c_str(), static_cast<unsigned long long>(o.seed), o.max_bytes, s.pool.size());
  for (std::size_t k = 0; k < s.pool.size(); ++k)
    std::fprintf(out, "#   comm %zu: %s\n", k, s.pool[k].describe().c_str());
  std::fprintf(out, "operations  %llu in %.1f s (allreduce %llu, bcast %llu, barrier %llu, sendrecv %llu), "
                    "after %llu warm-up operations\n",
               static_cast<unsigned long long>(r.ops), r.seconds, static_cast<unsigned long long>(r.by_kind[0]),
               static_cast<unsigned long long>(r.by_kind[1]), static_cast<unsigned long long>(r.by_kind[2]),
               static_cast<unsigned long long>(r.by_kind[3]), static_cast<unsigned long long>(r.warmup_ops));
  std::fprintf(out, "bytes       %llu payload bytes (%.1f MiB)\n", static_cast<unsigned long long>(r.payload_bytes),
               static_cast<double>(r.payload_bytes) / (1 << 20));
  std::fprintf(out, "mismatches  %llu\n", static_cast<unsigned long long>(s.mismatches));
  std::fprintf(out, "memory (MiB; start = after the warm-up); bound: VmRSS and VmHWM at the end <= mid * (1 + %g/100) "
                    "+ %g MiB\n", o.rss_growth_percent, o.rss_growth_mib);
  std::fprintf(out, "  rank   VmRSS start    mid    end   VmHWM start    mid    end   heap start    end  growth\n");
  for (std::size_t i = 0; i < s.ranks.size(); ++i) {
    const RankFigures& f = s.ranks[i];
    std::fprintf(out, "  %4zu   %11.1f %6.1f %6.1f   %11.1f %6.1f %6.1f   %10.1f %6.1f  %s\n", i, mib(f.start.rss_kib),
                 mib(f.mid.rss_kib), mib(f.end.rss_kib), mib(f.start.hwm_kib), mib(f.mid.hwm_kib), mib(f.end.hwm_kib),
                 mib(f.start.heap_kib), mib(f.end.heap_kib), f.rss_grew ? "BEYOND BOUND" : "ok");
  }
  std::fprintf(out, "result      %s\n",
               s.pass() ? "PASS"
                        : (s.mismatches ? "FAIL (mismatches)" : ("FAIL (memory grew: not " + bound_text(o) + ")").c_str()));
}

bool write_json(const std::string& path, const JobSummary& s, const SoakOptions& o) {
  std::ofstream file(path);
  if (!file) {
    std::fprintf(stderr, "rcoll-soak: cannot write %s\n", path.c_str());
    return false;
  }
  const RankResult& r = s.rank0;
  file << "{\n  \"tool\": \"rcoll-soak\",\n  \"host\": " << bench::json_string(bench::host_name())
       << ",\n  \"ranks\": " << s.world << ",\n  \"transport\": " << bench::json_string(s.transport)
       << ",\n  \"seed\": " << o.seed << ",\n  \"max_bytes\": " << o.max_bytes << ",\n  \"communicators\": [";
  for (std::size_t k = 0; k < s.pool.size(); ++k)
    file << (k ? ", " : "") << bench::json_string(s.pool[k].describe());
  file << "],\n  \"seconds\": " << r.seconds << ",\n  \"warmup_operations\": " << r.warmup_ops
       << ",\n  \"operations\": " << r.ops << ",\n  \"allreduce\": " << r.by_kind[0] << ",\n  \"bcast\": "
       << r.by_kind[1] << ",\n  \"barrier\": " << r.by_kind[2] << ",\n  \"sendrecv\": " << r.by_kind[3]
       << ",\n  \"payload_bytes\": " << r.payload_bytes << ",\n  \"mismatches\": " << s.mismatches
       << ",\n  \"rss_bound\": " << bench::json_string(bound_text(o)) << ",\n  \"memory_kib\": [";
  for (std::size_t i = 0; i < s.ranks.size(); ++i) {
    const RankFigures& f = s.ranks[i];
    file << (i ? "," : "") << "\n    {\"rank\": " << i;
    for (auto [name, m] : {std::pair{"start", &f.start}, std::pair{"mid", &f.mid}, std::pair{"end", &f.end}})
      file << ", \"vmrss_" << name << "\": " << m->rss_kib << ", \"vmhwm_" << name << "\": " << m->hwm_kib
           << ", \"heap_" << name << "\": " << m->heap_kib;
    file << ", \"within_bound\": " << (f.rss_grew ? "false" : "true") << "}";
  }
  file << "\n  ],\n  \"pass\": " << (s.pass() ? "true" : "false") << "\n}\n";
  return static_cast<bool>(file);
}

}  // namespace rcoll::soak
