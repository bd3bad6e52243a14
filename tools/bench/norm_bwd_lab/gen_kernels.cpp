// Prints the kernel function the inner-outer scheduler generates for bf16 layer norm backward
// of [1400, 4096] (enough rows for every grid below), renamed `name`:
//   norm_bwd_lab_kernels name project_to_inputs sums_in_shared blocks_per_sm
// (0/1, 0/1, n: the grid is n blocks per SM of 132 SMs and, n > 2, the launch bounds ask for
// n). No GPU needed: the kernel is scheduled, lowered and generated on the CPU. run.sh
// writes the lab's k_*.cuh with it.
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "minifuser/minifuser.h"
#include "scheduler/normalization_inner_outer.h"
#include "scheduler/runtime_info.h"
#include "unit/scheduler/normalization_fusions.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    fmt::print(stderr, "usage: {} name project_to_inputs sums_in_shared blocks_per_sm\n", argv[0]);
    return 2;
  }
  using mf::DataType;
  using mf::Tensor;
  const int64_t m = 1400, n = 4096, blocks_per_sm = std::atoll(argv[4]);
  mf::Fusion fusion;
  {
    mf::FusionGuard fg(&fusion);
    mf::testing::buildLayerNormBackward(fusion, DataType::BFloat16);
  }
  const std::vector<Tensor> in = {
      Tensor::random({m, n}, DataType::BFloat16, 6), Tensor::random({m, n}, DataType::BFloat16, 7),
      Tensor::random({m}, DataType::Float, 8), Tensor::random({m}, DataType::Float, 9),
      Tensor::random({n}, DataType::BFloat16, 10)};
  mf::InnerOuterPersistentScheduler scheduler;
  mf::Fusion info_fusion(fusion);
  mf::SchedulerRuntimeInfo info(&info_fusion, in);
  auto params = scheduler.computeHeuristics(&info_fusion, info);
  auto& p = dynamic_cast<mf::InnerOuterPersistentParams&>(*params);
  p.project_to_inputs = std::string(argv[2]) == "1";
  p.sums_in_shared = std::string(argv[3]) == "1";
  p.grid_blocks = 132 * blocks_per_sm;
  p.lparams.bind(p.grid_blocks, mf::ParallelType::BIDy);
  if (blocks_per_sm > 2) p.min_blocks_per_sm = blocks_per_sm;
  scheduler.schedule(&fusion, &p);
  mf::KernelExecutor ke;
  ke.compile(&fusion, in, {.index_type = p.index_type, .min_blocks_per_sm = p.min_blocks_per_sm});
  std::string code = ke.kernelCode();
  code.replace(code.find(ke.kernelName()), ke.kernelName().size(), argv[1]);
  fmt::print("// {}\n{}", p.toString(), code);
  return 0;
}
