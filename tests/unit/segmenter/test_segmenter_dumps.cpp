// Determinism of the segmentation (in one process and across two) and the segmenter's dump
// options: segmenter_logging, fusion_segments and fusion_segments_graph.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;

// A fusion with several segments: two shapes, a broadcast, a segment_set and a layout op
// with computed offsets.
std::unique_ptr<Fusion> makeBranchyFusion() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(1);
  TensorView* z = makeContigTensor(1);
  TensorView* in_off = makeContigTensor(1, DataType::Int32);
  TensorView* out_off = makeContigTensor(1, DataType::Int32);
  for (TensorView* tv : {x, y, z, in_off, out_off}) fusion->addInput(tv);
  TensorView* a = add(x, broadcast(mul(y, constFloat(3.0)), {false, true}));
  TensorView* b = segment_set(exp(a));
  fusion->addOutput(mul(b, constFloat(2.0)));
  fusion->addOutput(sub(z, constFloat(1.0)));
  fusion->addOutput(
      preprocessGroupedMatmulInputSf(a, add(in_off, constInt(1, DataType::Int32)), out_off));
  return fusion;
}

std::vector<Tensor> branchyInputs() {
  return {Tensor::random({300, 8}, DataType::Float, 1), Tensor::random({300}, DataType::Float, 2),
          Tensor::random({17}, DataType::Float, 3), Tensor::fromVector<int32_t>({-1, 99, 199}, {3}),
          Tensor::fromVector<int32_t>({0, 128, 256}, {3})};
}

std::string segmentBranchy() {
  std::unique_ptr<Fusion> fusion = makeBranchyFusion();
  return SegmentCandidateFinder::segment(*fusion, branchyInputs())->toString();
}

// Twenty segmentations of the same fusion (each built anew, so at new addresses) print the
// same text.
TEST(SegmentationDeterminism, SameTextTwentyTimes) {
  const std::string first = segmentBranchy();
  EXPECT_THAT(first, HasSubstr("Segmented fusion: 4 groups"));
  for (int i = 0; i < 19; ++i) EXPECT_EQ(segmentBranchy(), first) << "run " << i + 1;
}

// Prints the segmentation between markers; the next test runs it in a second process.
TEST(SegmentationDeterminism, PrintForAnotherProcess) {
  std::cout << "<<<segments\n" << segmentBranchy() << "segments>>>\n";
}

// The same text in another process (another heap layout): this binary re-run with a filter.
TEST(SegmentationDeterminism, SameTextInAnotherProcess) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string cmd =
      "'" + self + "' --gtest_filter=SegmentationDeterminism.PrintForAnotherProcess 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  ASSERT_EQ(pclose(pipe), 0) << out;
  const size_t begin = out.find("<<<segments\n"), end = out.find("segments>>>");
  ASSERT_NE(begin, std::string::npos) << out;
  ASSERT_NE(end, std::string::npos) << out;
  EXPECT_EQ(out.substr(begin + 12, end - begin - 12), segmentBranchy());
}

// T1 = T0 * 2; T2 = segment_set(T1); T3 = neg(T2), segmented with `opt` enabled; returns
// what it printed.
std::string segmentChainWithDump(DumpOption opt, const std::string& dir = ".") {
  OptionsGuard guard;
  guard.enableDump(opt);
  guard.get().dump_dir = dir;
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addOutput(neg(segment_set(mul(t0, constFloat(2.0)))));
  ::testing::internal::CaptureStdout();
  try {
    SegmentCandidateFinder::segment(fusion, {Tensor::random({9}, DataType::Float, 1)});
  } catch (...) {
    ::testing::internal::GetCapturedStdout();  // end the capture, then report
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

// Each merge tried, accepted or refused, and each scheduler's reason.
TEST(SegmenterDumps, SegmenterLoggingExplainsEachMerge) {
  const std::string log = segmentChainWithDump(DumpOption::SegmenterLogging);
  EXPECT_THAT(log, HasSubstr("segmenter: the fusion holds a segment_set; segmenting\n"));
  EXPECT_THAT(log, HasSubstr("segmenter: the region {T1, T2} between segment_sets is taken by "
                             "pointwise\n"));
  EXPECT_THAT(log, HasSubstr("segmenter: merge {T1, T2} + {T3}: refused, no scheduler takes the "
                             "union:\n  no_op: "));
  // T2 is read inside the union, so it is a local tensor there.
  EXPECT_THAT(log, HasSubstr("\n  pointwise: `T2_l_float[iS2{i0}] = segment_set(T1)` marks a "
                             "segment boundary; the segmenter cuts the fusion there\n"));
}

// The final segmentation, as SegmentedFusion::toString prints it.
TEST(SegmenterDumps, FusionSegmentsPrintsTheSegmentation) {
  const std::string out = segmentChainWithDump(DumpOption::FusionSegments);
  EXPECT_THAT(out, HasSubstr("Segmented fusion: 2 groups\ngroup 0 (pointwise)\n"));
  EXPECT_THAT(out, HasSubstr("edge group 0 -> group 1: T2\n"));
}

// A Graphviz file of the groups and edges in MINIFUSER_DUMP_DIR.
TEST(SegmenterDumps, FusionSegmentsGraphWritesDot) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "mf_fusion_segments_graph";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string out = segmentChainWithDump(DumpOption::FusionSegmentsGraph, dir.string());
  EXPECT_THAT(out, HasSubstr("fusion_segments_graph: wrote " + dir.string() + "/fusion_segments_"));
  std::vector<std::filesystem::path> dots;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".dot") dots.push_back(entry.path());
  ASSERT_EQ(dots.size(), 1u) << out;
  std::stringstream dot;
  dot << std::ifstream(dots[0]).rdbuf();
  EXPECT_THAT(dot.str(), HasSubstr("digraph segmented_fusion {\n"));
  EXPECT_THAT(dot.str(), HasSubstr("  group0 [label=\"group 0 (pointwise)\\l"));
  EXPECT_THAT(dot.str(), HasSubstr("= segment_set(T1)\\l"));
  EXPECT_THAT(dot.str(), HasSubstr("  group0 -> group1 [label=\"T2\"];\n"));
  std::filesystem::remove_all(dir);
}

// A MINIFUSER_DUMP_DIR that does not exist is created (parents too): the dump is written.
TEST(SegmenterDumps, FusionSegmentsGraphCreatesAMissingFolder) {
  const std::filesystem::path root =
      std::filesystem::path(::testing::TempDir()) / "mf_missing_dump_dir";
  std::filesystem::remove_all(root);
  const std::filesystem::path dir = root / "a" / "b";
  const std::string out = segmentChainWithDump(DumpOption::FusionSegmentsGraph, dir.string());
  EXPECT_THAT(out, HasSubstr("fusion_segments_graph: wrote " + dir.string() + "/fusion_segments_"));
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  std::filesystem::remove_all(root);
}

// A folder that cannot be created warns on stderr, naming the file, and the segmentation
// goes on: a dump never aborts a run.
TEST(SegmenterDumps, FusionSegmentsGraphUnwritableFolderWarnsAndGoesOn) {
  ::testing::internal::CaptureStderr();
  std::string out;
  EXPECT_NO_THROW(
      out = segmentChainWithDump(DumpOption::FusionSegmentsGraph, "/proc/mf_cannot_create/dump"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("minifuser: warning: fusion_segments_graph: cannot write "
                             "/proc/mf_cannot_create/dump/fusion_segments_"));
  EXPECT_THAT(err, HasSubstr("; the dump is skipped\n"));
  EXPECT_THAT(out, Not(HasSubstr("wrote")));
}

}  // namespace
}  // namespace mf
