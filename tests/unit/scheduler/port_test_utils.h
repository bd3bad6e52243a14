// Helpers shared by the ports of nvFuser's tests (test_*_ports.cpp).
#pragma once

#include <vector>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "random/kernel_interpreter.h"

namespace mf::testing {

//! Runs `ke`'s compiled kernel on `inputs`: on the device with a GPU, else on the host
//! interpreter after the launch checks (KernelExecutor::prepareLaunch).
inline std::vector<Tensor> runCompiled(KernelExecutor& ke, const std::vector<Tensor>& inputs) {
  if (cuda::cudaAvailable()) return ke.run(inputs);
  ke.prepareLaunch(inputs);
  return interpretKernelOrThrow(ke.kernel(), inputs);
}

}  // namespace mf::testing
