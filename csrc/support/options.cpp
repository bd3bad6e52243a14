#include "support/options.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "support/error.h"

namespace mf {
namespace {

struct DumpEntry {
  DumpOption opt;
  std::string_view name;
  std::string_view description;
};

constexpr DumpEntry kDumpEntries[] = {
#define MF_DUMP_ENTRY(e, name, desc) {DumpOption::e, name, desc},
    MF_DUMP_OPTIONS(MF_DUMP_ENTRY)
#undef MF_DUMP_ENTRY
};
constexpr size_t kNumDumpOptions = std::size(kDumpEntries);

std::string envOr(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : std::move(fallback);
}

Options readEnvironment() {
  Options o;
  o.dump = parseDumpList(envOr("MINIFUSER_DUMP", ""), std::cout);
  o.dump_dir = envOr("MINIFUSER_DUMP_DIR", ".");
  std::string home = envOr("HOME", "");
  o.cache_dir = envOr("MINIFUSER_CACHE_DIR", home.empty() ? "" : home + "/.cache/minifuser");
  o.update_golden = envOr("MINIFUSER_UPDATE_GOLDEN", "0") != "0";
  o.no_device = envOr("MINIFUSER_NO_DEVICE", "0") != "0";
  return o;
}

Options& mutableOptions() {
  static Options opts = readEnvironment();
  return opts;
}

}  // namespace

std::vector<bool> parseDumpList(std::string_view dump_list, std::ostream& help_out) {
  std::vector<bool> enabled(kNumDumpOptions, false);
  size_t pos = 0;
  while (pos <= dump_list.size()) {
    size_t end = dump_list.find(',', pos);
    if (end == std::string_view::npos) end = dump_list.size();
    std::string_view item = dump_list.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    pos = end + 1;
    if (item.empty()) continue;
    if (item == "help") {
      help_out << dumpHelp();
      continue;
    }
    bool found = false;
    for (const DumpEntry& e : kDumpEntries) {
      if (e.name == item) {
        enabled[static_cast<size_t>(e.opt)] = true;
        found = true;
      }
    }
    MF_CHECK(found, "MINIFUSER_DUMP: unknown option '{}'; valid options: help, {}", item, [] {
      std::string names;
      for (const DumpEntry& e : kDumpEntries)
        names += (names.empty() ? "" : ", ") + std::string(e.name);
      return names;
    }());
  }
  return enabled;
}

std::string dumpHelp() {
  std::ostringstream os;
  os << "MINIFUSER_DUMP=opt1,opt2,... prints stages of compilation. Options:\n";
  for (const DumpEntry& e : kDumpEntries) os << fmt::format("  {:<22} {}\n", e.name, e.description);
  os << "Related: MINIFUSER_DUMP_DIR (folder for cuda_to_file, fusion_segments_graph), "
        "MINIFUSER_CACHE_DIR (kernel cache).\n";
  return os.str();
}

std::string_view dumpName(DumpOption opt) {
  return kDumpEntries[static_cast<size_t>(opt)].name;
}

const Options& options() {
  return mutableOptions();
}

bool isDumpEnabled(DumpOption opt) {
  return options().dump[static_cast<size_t>(opt)];
}

std::ostream& dumpStream() {
  return std::cout;
}

OptionsGuard::OptionsGuard() : saved_(mutableOptions()) {}
OptionsGuard::~OptionsGuard() {
  mutableOptions() = saved_;
}
Options& OptionsGuard::get() {
  return mutableOptions();
}
void OptionsGuard::enableDump(DumpOption opt) {
  get().dump[static_cast<size_t>(opt)] = true;
}

}  // namespace mf
