//! minifuser: a small fusion compiler for NVIDIA GPUs. This umbrella header is the public API.
#pragma once

#include "codegen/codegen.h"
#include "executor/kernel_executor.h"
#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "lower/pipeline.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"
#include "reference/reference_evaluator.h"
#include "scheduler/tools/inlining.h"
#include "tensor/tensor.h"
#include "support/error.h"
#include "support/numerics.h"
#include "support/options.h"
