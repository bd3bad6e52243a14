#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "support/error.h"
#include "support/options.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {

// A comma list enables exactly the named options; spaces and empty items are ignored.
TEST(Options, ParsesDumpList) {
  std::ostringstream help;
  std::vector<bool> on = parseDumpList("fusion_ir, cuda_kernel,,", help);
  EXPECT_TRUE(on[static_cast<size_t>(DumpOption::FusionIr)]);
  EXPECT_TRUE(on[static_cast<size_t>(DumpOption::CudaKernel)]);
  EXPECT_FALSE(on[static_cast<size_t>(DumpOption::Ptx)]);
  EXPECT_TRUE(help.str().empty());
}

// An unknown option is a user error that lists the valid names.
TEST(Options, UnknownDumpOptionListsValidOnes) {
  std::ostringstream help;
  EXPECT_THAT(
      [&] { parseDumpList("fusion_ir,kernal_ir", help); },
      ThrowsMessage<UserError>(AllOf(HasSubstr("unknown option 'kernal_ir'"),
                                     HasSubstr("kernel_ir"), HasSubstr("fusion_transforms"))));
}

// help prints every option with its description and enables nothing.
TEST(Options, HelpListsEveryOption) {
  std::ostringstream help;
  std::vector<bool> on = parseDumpList("help", help);
  for (bool b : on) EXPECT_FALSE(b);
  EXPECT_THAT(help.str(), HasSubstr("fusion_ir"));
  EXPECT_THAT(help.str(), HasSubstr("cuda_to_file"));
  EXPECT_THAT(help.str(), HasSubstr("launch_params"));
}

// The guard enables a dump for its scope only.
TEST(Options, GuardRestores) {
  EXPECT_FALSE(isDumpEnabled(DumpOption::KernelIr));
  {
    OptionsGuard g;
    g.enableDump(DumpOption::KernelIr);
    EXPECT_TRUE(isDumpEnabled(DumpOption::KernelIr));
  }
  EXPECT_FALSE(isDumpEnabled(DumpOption::KernelIr));
}

// MINIFUSER_CACHE_DIR: unset means $HOME/.cache/minifuser; set but empty turns the disk
// cache off, as Options::cache_dir documents (it used to fall back to $HOME's).
TEST(Options, EmptyCacheDirTurnsTheDiskCacheOff) {
  auto parse = [](std::map<std::string, std::string> env) {
    return parseOptions([env](const char* name) -> std::optional<std::string> {
      auto it = env.find(name);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
  };
  EXPECT_EQ(parse({{"HOME", "/home/u"}}).cache_dir, "/home/u/.cache/minifuser");
  EXPECT_EQ(parse({{"HOME", "/home/u"}, {"MINIFUSER_CACHE_DIR", ""}}).cache_dir, "");
  EXPECT_EQ(parse({{"HOME", "/home/u"}, {"MINIFUSER_CACHE_DIR", "/c"}}).cache_dir, "/c");
  EXPECT_EQ(parse({}).cache_dir, "");
  // Elsewhere unset and empty mean the same.
  EXPECT_EQ(parse({{"MINIFUSER_DUMP_DIR", ""}}).dump_dir, ".");
  EXPECT_THAT(
      [&] {
        parse({{"MINIFUSER_DUMP", "nope"}});
      },
      ThrowsMessage<UserError>(HasSubstr("unknown option 'nope'")));
}

}  // namespace mf
