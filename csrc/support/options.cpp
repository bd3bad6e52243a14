#include "support/options.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
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

Options& mutableOptions() {
  static Options opts = parseOptions([](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  });
  return opts;
}

}  // namespace

Options parseOptions(const EnvironmentLookup& env) {
  // Unset and empty mean the same, except for MINIFUSER_CACHE_DIR (empty: no disk cache).
  auto envOr = [&](const char* name, std::string fallback) {
    std::optional<std::string> v = env(name);
    return v && !v->empty() ? *v : fallback;
  };
  Options o;
  o.dump = parseDumpList(envOr("MINIFUSER_DUMP", ""), std::cout);
  o.dump_dir = envOr("MINIFUSER_DUMP_DIR", ".");
  const std::string home = envOr("HOME", "");
  o.cache_dir = env("MINIFUSER_CACHE_DIR").value_or(home.empty() ? "" : home + "/.cache/minifuser");
  o.update_golden = envOr("MINIFUSER_UPDATE_GOLDEN", "0") != "0";
  o.no_device = envOr("MINIFUSER_NO_DEVICE", "0") != "0";
  return o;
}

std::optional<std::string> writeDumpFile(DumpOption opt, std::string_view file_name,
                                         std::string_view contents) {
  const std::filesystem::path dir = options().dump_dir;
  const std::string path = (dir / file_name).string();
  auto skip = [&](const std::string& why) -> std::optional<std::string> {
    std::cerr << fmt::format("minifuser: warning: {}: cannot write {} ({}); the dump is skipped\n",
                             dumpName(opt), path, why);
    return std::nullopt;
  };
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return skip(fmt::format("cannot create the folder {}: {}", dir.string(), ec.message()));
  std::ofstream file(path, std::ios::binary);
  file.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  file.close();
  if (!file) return skip("the write failed");
  return path;
}

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
